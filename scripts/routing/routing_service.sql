/* Data-dependent routing: the forwarding routing service (seed 004, Rushi Desai's design).
   Run it in the database that hosts the router (after USE). It creates:
     resolved_conversations  inbound <-> outbound conversation mapping (a row each way)
     routing_service_config  the name of the classifier procedure  } classifier.sql
     sample_classifier       reads /message/toServiceName           }
     route_messages          the activated procedure that classifies and forwards
     RoutingQueue, [urn:rushi.desai.name/RoutingService]
   Assumptions, as in the seed: the router's database has every message type and contract
   of the target services (add each contract to the service: ALTER SERVICE
   [urn:rushi.desai.name/RoutingService] (ADD CONTRACT [...])), and routes to every target
   service. A classifier is any procedure
       (@message_body varbinary(max), @to_service_name nvarchar(256) OUTPUT)
   named in routing_service_config.
   Limitation (seed 004): the router talks to the target on the initiator's behalf, so the
   target cannot authenticate the initiator (see redirect_service.sql for the alternative). */

CREATE TABLE resolved_conversations (
    conversation_handle uniqueidentifier NOT NULL PRIMARY KEY,   -- the side a message came on
    mapped_handle uniqueidentifier NOT NULL                      -- the side it is forwarded on
);
GO
:r classifier.sql

CREATE PROCEDURE dbo.route_messages
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @handle uniqueidentifier, @type sysname, @body varbinary(max),
            @contract sysname, @out uniqueidentifier, @to_service nvarchar(256),
            @classifier sysname, @code int, @description nvarchar(3000), @sql nvarchar(max);
    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (
            RECEIVE TOP (1) @handle = conversation_handle, @type = message_type_name,
                @body = message_body, @contract = service_contract_name
            FROM RoutingQueue
        ), TIMEOUT 1000;
        IF @@ROWCOUNT = 0
        BEGIN
            COMMIT TRANSACTION;
            BREAK;
        END
        SET @out = NULL;
        SELECT @out = mapped_handle FROM resolved_conversations
            WHERE conversation_handle = @handle;

        IF @type = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'
        BEGIN
            -- End the other side too, then this one; forget the mapping.
            IF @out IS NOT NULL
                END CONVERSATION @out;
            END CONVERSATION @handle;
            DELETE FROM resolved_conversations
                WHERE conversation_handle = @handle OR conversation_handle = @out;
        END
        ELSE IF @type = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error'
        BEGIN
            -- End the other side with an error that wraps the one received.
            IF @out IS NOT NULL
            BEGIN
                WITH XMLNAMESPACES ('http://schemas.microsoft.com/SQL/ServiceBroker/Error' AS e)
                SELECT @code = err.value('(/e:Error/e:Code)[1]', 'int'),
                       @description = err.value('(/e:Error/e:Description)[1]',
                                                  'nvarchar(3000)')
                FROM (SELECT CAST(@body AS xml) AS err) AS received;
                SET @description = N'Routed error ' + CAST(@code AS nvarchar(12)) + N': '
                    + ISNULL(@description, N'');
                -- END CONVERSATION … WITH ERROR takes a positive code (broker errors are
                -- negative).
                SET @code = CASE WHEN ABS(@code) > 0 THEN ABS(@code) ELSE 1 END;
                SET @description = ISNULL(@description, N'Routed error');
                END CONVERSATION @out WITH ERROR = @code DESCRIPTION = @description;
            END
            END CONVERSATION @handle;
            DELETE FROM resolved_conversations
                WHERE conversation_handle = @handle OR conversation_handle = @out;
        END
        ELSE
        BEGIN
            IF @out IS NULL
            BEGIN
                -- A new inbound conversation: classify its first message, begin the
                -- outbound dialog on the same contract, map both ways.
                SELECT TOP (1) @classifier = classifier_proc FROM routing_service_config;
                SET @to_service = NULL;
                EXEC @classifier @body, @to_service OUTPUT;
                IF @to_service IS NULL
                BEGIN
                    END CONVERSATION @handle WITH ERROR = 1
                        DESCRIPTION = N'The routing service could not classify the message.';
                    COMMIT TRANSACTION;
                    CONTINUE;
                END
                -- The contract is an identifier in BEGIN DIALOG: dynamic SQL.
                SET @sql = N'BEGIN DIALOG @o FROM SERVICE [urn:rushi.desai.name/RoutingService] '
                    + N'TO SERVICE @s ON CONTRACT ' + QUOTENAME(@contract)
                    + N' WITH ENCRYPTION = OFF;';
                EXEC sp_executesql @sql, N'@o uniqueidentifier OUTPUT, @s nvarchar(256)',
                    @o = @out OUTPUT, @s = @to_service;
                INSERT INTO resolved_conversations (conversation_handle, mapped_handle)
                    VALUES (@handle, @out), (@out, @handle);
            END
            -- Forward the message with its own type (an identifier in SEND too).
            SET @sql = N'SEND ON CONVERSATION @o MESSAGE TYPE ' + QUOTENAME(@type) + N' (@b);';
            EXEC sp_executesql @sql, N'@o uniqueidentifier, @b varbinary(max)',
                @o = @out, @b = @body;
        END
        COMMIT TRANSACTION;
    END
END
GO

CREATE QUEUE RoutingQueue WITH STATUS = ON,
    ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.route_messages, MAX_QUEUE_READERS = 1,
                EXECUTE AS OWNER);
CREATE SERVICE [urn:rushi.desai.name/RoutingService] ON QUEUE RoutingQueue;
-- Unsecured dialogs from other instances act as public here (SQL Server's rule; its
-- tutorials grant this).
GRANT SEND ON SERVICE::[urn:rushi.desai.name/RoutingService] TO PUBLIC;
GO
