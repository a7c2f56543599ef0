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
DECLARE @doc xml = '<list><item>a</item></list>'
SET @doc.modify('insert <item>b</item> as last into (/list)[1]')
SELECT @doc AS after_insert
DECLARE @new varchar(5) = 'z'
SET @doc.modify('replace value of (/list/item/text())[1] with sql:variable("@new")')
SET @doc.modify('delete /list/item[2]')
SELECT @doc AS after_replace_delete
DECLARE @none xml
SET @none.modify('delete /a')
