/* One instance's Service Broker endpoint for the three-broker demo (three_brokers.py):
   a certificate in master (its private key under master's master key), the endpoint
   authenticating with it on 127.0.0.1:$(port), and the certificate's public part backed up
   to $(cert_dir)/$(name).cer for the other instances to trust (trust.sql).
   Variables: name, port, cert_dir. */

USE master;
CREATE MASTER KEY ENCRYPTION BY PASSWORD = 'M@sterKey-$(name)';
CREATE CERTIFICATE EndpointCert WITH SUBJECT = 'broker endpoint $(name)';
BACKUP CERTIFICATE EndpointCert TO FILE = '$(cert_dir)/$(name).cer';
CREATE ENDPOINT BrokerEndpoint STATE = STARTED
    AS TCP (LISTENER_PORT = $(port), LISTENER_IP = (127.0.0.1))
    FOR SERVICE_BROKER (AUTHENTICATION = CERTIFICATE EndpointCert, ENCRYPTION = REQUIRED);
GO
