/* Data-dependent routing, the redirect variant (seed 004, "Limitations" 1 and 2): instead of
   forwarding, the service classifies the first message and answers with the target
   service's name; the initiator then begins its own dialog with that service, so the
   target can authenticate the initiator end to end and the router carries one message
   each way per lookup. Run it in the router's database (after USE); it shares the
   classifier (classifier.sql) with routing_service.sql. A request is any XML the
   classifier understands; the answer is
       <redirect><toServiceName>…</toServiceName></redirect>
   (an empty <redirect/> when the classifier found nothing). */

:r classifier.sql

CREATE MESSAGE TYPE [urn:rushi.desai.name/RedirectRequest] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [urn:rushi.desai.name/Redirect] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [urn:rushi.desai.name/RedirectContract] (
    [urn:rushi.desai.name/RedirectRequest] SENT BY INITIATOR,
    [urn:rushi.desai.name/Redirect] SENT BY TARGET);
GO

CREATE PROCEDURE dbo.redirect_messages
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @handle uniqueidentifier, @type sysname, @body varbinary(max),
            @classifier sysname, @to_service nvarchar(256), @answer xml;
    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (
            RECEIVE TOP (1) @handle = conversation_handle, @type = message_type_name,
                @body = message_body
            FROM RedirectQueue
        ), TIMEOUT 1000;
        IF @@ROWCOUNT = 0
        BEGIN
            COMMIT TRANSACTION;
            BREAK;
        END
        IF @type = N'urn:rushi.desai.name/RedirectRequest'
        BEGIN
            SELECT TOP (1) @classifier = classifier_proc FROM routing_service_config;
            SET @to_service = NULL;
            EXEC @classifier @body, @to_service OUTPUT;
            SET @answer = (SELECT @to_service AS toServiceName
                           FOR XML PATH('redirect'), TYPE);
            SEND ON CONVERSATION @handle MESSAGE TYPE [urn:rushi.desai.name/Redirect]
                (CAST(@answer AS varbinary(max)));
        END
        -- One answer per dialog: the router's side ends after it (and on EndDialog/Error).
        END CONVERSATION @handle;
        COMMIT TRANSACTION;
    END
END
GO

CREATE QUEUE RedirectQueue WITH STATUS = ON,
    ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.redirect_messages, MAX_QUEUE_READERS = 1,
                EXECUTE AS OWNER);
CREATE SERVICE [urn:rushi.desai.name/RedirectService] ON QUEUE RedirectQueue
    ([urn:rushi.desai.name/RedirectContract]);
-- Unsecured dialogs from other instances act as public here (SQL Server's rule; its
-- tutorials grant this).
GRANT SEND ON SERVICE::[urn:rushi.desai.name/RedirectService] TO PUBLIC;
GO
