DECLARE @x xml = '<order id="7"><item qty="2">pen</item><item qty="5">ink</item></order>'
PRINT @x.value('(/order/@id)[1]', 'int')
PRINT @x.value('(/order/item)[2]', 'varchar(10)')
PRINT @x.exist('/order/item[@qty > 4]')
PRINT @x.exist('/order/item[@qty > 9]')
DECLARE @q int = 2
PRINT @x.value('(/order/item[@qty = sql:variable("@q")])[1]', 'varchar(10)')
SELECT @x.query('/order/item[1]') AS first_item
DECLARE @n xml = '<m:msg xmlns:m="urn:test"><m:body>hi</m:body></m:msg>'
;WITH XMLNAMESPACES ('urn:test' AS m)
SELECT @n.value('(/m:msg/m:body)[1]', 'nvarchar(10)') AS body
