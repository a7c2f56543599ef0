-- Ownership chains as SQL Server documents them ("Ownership Chains"): a view, procedure or
-- function using an object of the same owner is not checked on it; another owner breaks
-- the chain and the caller's permission on the object is checked (Msg 229). Dynamic SQL
-- (EXEC of a string) always checks the caller; WITH EXECUTE AS checks the user named.
SET NOCOUNT ON
CREATE DATABASE chains
CREATE DATABASE chains2
GO
USE chains2
CREATE TABLE dbo.far (name varchar(10))
INSERT dbo.far VALUES ('far')
GO
USE chains
CREATE USER u1 WITHOUT LOGIN
CREATE USER u2 WITHOUT LOGIN
CREATE USER caller WITHOUT LOGIN
CREATE USER helper WITHOUT LOGIN
GO
CREATE SCHEMA s1 AUTHORIZATION u1
GO
CREATE SCHEMA s2 AUTHORIZATION u2
GO
CREATE TABLE s1.mine (a int)
CREATE TABLE s2.theirs (a int)
INSERT s1.mine VALUES (1)
INSERT s2.theirs VALUES (2)
GO
-- a view in u1's schema over u1's table (unbroken) and over u2's table (broken)
CREATE VIEW s1.v_mine AS SELECT a FROM s1.mine
GO
CREATE VIEW s1.v_theirs AS SELECT a FROM s2.theirs
GO
CREATE VIEW s1.v_nested AS SELECT a FROM s1.v_theirs
GO
GRANT SELECT ON s1.v_mine TO caller
GRANT SELECT ON s1.v_theirs TO caller
GRANT SELECT ON s1.v_nested TO caller
GO
EXECUTE AS USER = 'caller'
SELECT a AS through_unbroken FROM s1.v_mine
SELECT a AS through_broken FROM s1.v_theirs
SELECT a AS through_nested FROM s1.v_nested
SELECT a FROM s1.mine
REVERT
GO
-- a view over another database's table: no chain across databases
CREATE VIEW s1.v_other_db AS SELECT name FROM chains2.dbo.far
GO
GRANT SELECT ON s1.v_other_db TO caller
EXECUTE AS USER = 'caller'
SELECT name AS across_databases FROM s1.v_other_db
REVERT
GO
-- with SELECT on the other owner's table the broken chain passes
GRANT SELECT ON s2.theirs TO caller
EXECUTE AS USER = 'caller'
SELECT a AS through_broken_granted FROM s1.v_theirs
SELECT a AS through_nested_granted FROM s1.v_nested
REVERT
REVOKE SELECT ON s2.theirs FROM caller
GO
-- procedures: same owner (unbroken), another owner (broken), dynamic SQL, EXECUTE AS
CREATE PROCEDURE s1.read_mine AS SELECT a AS proc_mine FROM s1.mine
GO
CREATE PROCEDURE s1.read_theirs AS SELECT a AS proc_theirs FROM s2.theirs
GO
CREATE PROCEDURE s1.read_dynamic AS EXEC('SELECT a AS dynamic_mine FROM s1.mine')
GO
CREATE PROCEDURE s1.read_as_helper WITH EXECUTE AS 'helper'
AS SELECT a AS as_helper FROM s2.theirs
GO
CREATE PROCEDURE s1.call_other AS EXEC s2.p_theirs
GO
CREATE PROCEDURE s2.p_theirs AS SELECT a AS called_theirs FROM s2.theirs
GO
GRANT EXECUTE ON SCHEMA::s1 TO caller
EXECUTE AS USER = 'caller'
EXEC s1.read_mine
EXEC s1.read_theirs
EXEC s1.read_dynamic
EXEC s1.read_as_helper
EXEC s1.call_other
REVERT
GO
GRANT SELECT ON s2.theirs TO helper
GRANT EXECUTE ON s2.p_theirs TO caller
EXECUTE AS USER = 'caller'
EXEC s1.read_as_helper
EXEC s1.call_other
REVERT
GO
-- WITH EXECUTE AS OWNER runs as the procedure's owner (Msg 15517 when a role owns it)
CREATE ROLE r1
GO
CREATE PROCEDURE s1.who_owns WITH EXECUTE AS OWNER AS SELECT USER_NAME() AS running_as
GO
EXEC s1.who_owns
ALTER AUTHORIZATION ON s1.who_owns TO u2
EXEC s1.who_owns
ALTER AUTHORIZATION ON s1.who_owns TO r1
EXEC s1.who_owns
GO
-- a trigger belongs to its table's owner: u2's trigger writing u1's table breaks the chain
CREATE TABLE s2.audited (a int)
GO
CREATE TRIGGER s2.audit_it ON s2.audited AFTER INSERT AS INSERT s1.mine VALUES (9)
GO
GRANT INSERT ON s2.audited TO caller
EXECUTE AS USER = 'caller'
INSERT s2.audited VALUES (1)
GO
-- (the trigger's error ended that batch, still as caller, as a trigger runs with XACT_ABORT ON)
REVERT
-- (the owner change drops the permissions on the table: granted again)
ALTER AUTHORIZATION ON s2.audited TO u1
GRANT INSERT ON s2.audited TO caller
EXECUTE AS USER = 'caller'
INSERT s2.audited VALUES (2)
REVERT
SELECT a AS logged FROM s1.mine WHERE a = 9
GO
-- one owner again: the table moves to u1 and the chain holds
ALTER AUTHORIZATION ON s2.theirs TO u1
EXECUTE AS USER = 'caller'
EXEC s1.read_theirs
SELECT a AS through_now_unbroken FROM s1.v_theirs
REVERT
GO
USE master
DROP DATABASE chains
DROP DATABASE chains2
