/* The classifier both routing services use (seed 004): routing_service_config names the
   procedure, of the form
       (@message_body varbinary(max), @to_service_name nvarchar(256) OUTPUT),
   and sample_classifier reads /message/toServiceName from an XML body. Included by
   routing_service.sql and redirect_service.sql (:r); creates only what is missing. */

IF OBJECT_ID(N'routing_service_config') IS NULL
BEGIN
    CREATE TABLE routing_service_config (classifier_proc sysname NOT NULL);
    INSERT INTO routing_service_config (classifier_proc) VALUES (N'dbo.sample_classifier');
END
GO
IF OBJECT_ID(N'dbo.sample_classifier') IS NULL
    EXEC (N'CREATE PROCEDURE dbo.sample_classifier
    @message_body varbinary(max),
    @to_service_name nvarchar(256) OUTPUT
AS
    SET @to_service_name = CAST(@message_body AS xml).value(
        ''(/message/toServiceName)[1]'', ''nvarchar(256)'');');
GO
