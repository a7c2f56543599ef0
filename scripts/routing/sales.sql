/* The sales partitions' shared definitions (seed 004's demo): the message types and contract,
   the sales table (empty: each partition inserts its rows), the handled log, and
   dbo.serve_region, which answers a partition's queue. Included (:r) by demo.sql and
   partition.sql, in the database that hosts the partitions, after USE. */

:r sales_contract.sql
CREATE TABLE sales (region nvarchar(10) NOT NULL, amount money NOT NULL);
-- Each query a partition answered, by its <id> (the three-broker demo checks them).
CREATE TABLE handled (region nvarchar(10) NOT NULL, query_id int NULL);
GO

-- A partition's service: answers each query with its region's total; a query with a
-- <fail/> element is refused with an error (to show errors travelling back).
CREATE PROCEDURE dbo.serve_region @region nvarchar(10)
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @handle uniqueidentifier, @type sysname, @body varbinary(max), @total money,
            @reply nvarchar(200), @why nvarchar(200),
            @receive nvarchar(400) = N'RECEIVE TOP (1) @h = conversation_handle, '
                + N'@t = message_type_name, @b = message_body FROM '
                + QUOTENAME(@region + N'Queue') + N';';
    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
        SET @handle = NULL;
        EXEC sp_executesql @receive,
            N'@h uniqueidentifier OUTPUT, @t sysname OUTPUT, @b varbinary(max) OUTPUT',
            @h = @handle OUTPUT, @t = @type OUTPUT, @b = @body OUTPUT;
        IF @handle IS NULL
        BEGIN
            COMMIT TRANSACTION;
            BREAK;
        END
        IF @type = N'//ddr/SalesQuery' AND CAST(@body AS xml).exist('/message/fail') = 1
        BEGIN
            SET @why = N'The ' + @region + N' partition refused the query.';
            END CONVERSATION @handle WITH ERROR = 50001 DESCRIPTION = @why;
        END
        ELSE IF @type = N'//ddr/SalesQuery'
        BEGIN
            INSERT INTO handled (region, query_id)
                VALUES (@region, CAST(@body AS xml).value('(/message/id)[1]', 'int'));
            SELECT @total = SUM(amount) FROM sales WHERE region = @region;
            SET @reply = N'<reply region="' + @region + N'" total="'
                + CONVERT(nvarchar(30), @total) + N'"/>';
            SEND ON CONVERSATION @handle MESSAGE TYPE [//ddr/SalesReply]
                (CAST(@reply AS varbinary(max)));
        END
        ELSE
            END CONVERSATION @handle;       -- EndDialog or Error
        COMMIT TRANSACTION;
    END
END
GO
