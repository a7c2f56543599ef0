/* Let instance $(peer) connect to this one's endpoint (three-broker demo): its endpoint
   certificate, backed up by endpoint.sql to $(cert_dir)/$(peer).cer, is imported into master
   for a user whose login is granted CONNECT on the endpoint — SQL Server's certificate
   authentication between instances. Variables: peer, cert_dir. */

USE master;
CREATE LOGIN [$(peer)Login] WITH PASSWORD = 'P@ssw0rd-$(peer)';
CREATE USER [$(peer)User] FOR LOGIN [$(peer)Login];
CREATE CERTIFICATE [$(peer)Cert] AUTHORIZATION [$(peer)User]
    FROM FILE = '$(cert_dir)/$(peer).cer';
GRANT CONNECT ON ENDPOINT::BrokerEndpoint TO [$(peer)Login];
GO
