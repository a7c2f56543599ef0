--create the schema for the tradeEntry message
CREATE XMLSCHEMA N'<?xml version="1.0" ?>
<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"
targetNamespace=
    "http://www.develop.com/DMBrokerage/schemas/tradeEntry">

    <xsd:complexType name="tradeEntry">
        <xsd:sequence>
            <xsd:element name="RICCODE" type="xsd:string"/>
            <xsd:element name="CustomerID" type="xsd:int"/>
            <xsd:element name="OrderID" type="xsd:int"/>
            <xsd:element name="Date" type="xsd:date"/>
            <xsd:element name="BuySell" type="xsd:date"/>
            <xsd:element name="Volume" type="xsd:int"/>
            <xsd:element name="Price" type="xsd:decimal"/>
        </xsd:sequence>
    </xsd:complexType>
</xsd:schema>'

--create the messagetype based on the schema
create message type

    [//www.develop.com/DMBrokerage/TradeEntry]
ENCODING XML
WITH 'http://www.develop.com/DMBrokerage/schemas/tradeEntry'

--create the schema for the tradeAck message
CREATE XMLSCHEMA N'<?xml version="1.0" ?>
    <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"
        targetNamespace=
            "http://www.develop.com/DMBrokerage/schemas/tradeAck">

        <xsd:complexType name="tradeAck">
            <xsd:sequence>
                <xsd:element name="OrderID" type="xsd:int"/>
                <xsd:element name="AckId" type="xsd:int"/>
            </xsd:sequence>
        </xsd:complexType>
    </xsd:schema>'

-- create the message type for the trade ack
-- based on the schema
create message type
[//www.develop.com/DMBrokerage/TradeAck]
ENCODING XML
WITH 'http://www.develop.com/DMBrokerage/schemas/tradeAck'
