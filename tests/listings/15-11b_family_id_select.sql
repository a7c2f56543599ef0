select family_id
from sys.databases
where database_id = db_id('<db_name>')
