"""SQL Server's ``sys.messages`` texts of every error tsqlbroker raises: one dict, each number once.

:func:`tsqlbroker.errors.tsql_error` and ``sys.messages`` read them; printf-style placeholders are
kept as SQL Server writes them and :func:`tsqlbroker.errors.format_message` fills them in.
"""

from __future__ import annotations

# SQL Server's sys.messages texts for the numbers we raise. printf-style placeholders are kept
# as SQL Server writes them; :func:`format_message` fills them in.
MESSAGES: dict[int, tuple[int, str]] = {
    # --- procedures, control flow, cursors, transactions, KILL, table types, UDF rules
    # (registered by the interpreter and engine modules until issue 15)
    119: (15, ("Must pass parameter number %d and subsequent parameters as '@name = value'. "
               "After the form '@name = value' has been used, all subsequent parameters must "
               "be passed in the form '@name = value'.")),
    132: (15, ("The label '%.*ls' has already been declared. Label names must be unique within "
               "a query batch or stored procedure.")),
    133: (15, ("A GOTO statement references the label '%.*ls' but the label has not been "
               "declared.")),
    135: (15, "Cannot use a BREAK statement outside the scope of a WHILE statement."),
    136: (15, "Cannot use a CONTINUE statement outside the scope of a WHILE statement."),
    214: (16, "Procedure expects parameter '%ls' of type '%ls'."),
    313: (16, ("An insufficient number of arguments were supplied for the procedure or "
               "function %.*ls.")),
    352: (15, ('The table-valued parameter "%.*ls" must be declared with the '
               "READONLY option.")),
    443: (16, ("Invalid use of a side-effecting operator '%.*ls' within a "
               "function.")),
    444: (16, ("Select statements included within a function cannot return "
               "data to a client.")),
    512: (16, ("Subquery returned more than 1 value. This is not permitted when the subquery "
               "follows =, !=, <, <= , >, >= or when the subquery is used as an expression.")),
    628: (16, "Cannot issue SAVE TRANSACTION when there is no active transaction."),
    2732: (16, ("Error number %ld is invalid. The number must be from %ld through %ld and it "
                "cannot be 50000.")),
    2754: (16, ("Error severity levels greater than 18 can only be specified by members of the "
                "sysadmin role, using the WITH LOG option.")),
    3702: (16, 'Cannot drop database "%.*ls" because it is currently in use.'),
    3931: (16, ("The current transaction cannot be committed and cannot be rolled back to a "
                "savepoint. Roll back the entire transaction.")),
    3980: (16, ("The request failed to run because the batch is aborted, this can be caused by "
                "abort signal sent from client, or another request is running in the same "
                "session, which makes the session busy.")),
    3998: (16, ("Uncommittable transaction is detected at the end of the batch. The "
                "transaction is rolled back.")),
    4121: (16, ('Cannot find either column "%.*ls" or the user-defined function or aggregate '
                '"%.*ls", or the name is ambiguous.')),
    4145: (15, ("An expression of non-boolean type specified in a context where a condition is "
                "expected, near '%.*ls'.")),
    6104: (16, "Cannot use KILL to kill your own process."),
    6106: (16, "Process ID %d is not an active process ID."),
    6107: (14, "Only user processes can be killed."),
    6115: (16, "KILL command cannot be used inside user transactions."),
    6120: (16, ("Status report cannot be obtained. Rollback operation for Process ID %d is not "
                "in progress.")),
    6401: (16, "Cannot roll back %.*ls. No transaction or savepoint of that name was found."),
    8143: (16, "Parameter '%.*ls' was supplied multiple times."),
    8144: (16, "Procedure or function %.*ls has too many arguments specified."),
    8146: (16, "Procedure %.*ls has no parameters and arguments were supplied."),
    8162: (16, ('The formal parameter "%.*ls" was not declared as an OUTPUT parameter, but the '
                'actual parameter passed in requested output.')),
    8164: (16, "An INSERT EXEC statement cannot be nested."),
    8167: (16, ('The type of column "%.*ls" conflicts with the type of other '
                "columns specified in the UNPIVOT list.")),
    8178: (16, ("The parameterized query '%.*ls' expects the parameter '%.*ls', which was not "
                "supplied.")),
    10700: (16, ('The table-valued parameter "%.*ls" is READONLY and cannot be '
                 "modified.")),
    10704: (15, "To rethrow an error, a THROW statement must be used inside a CATCH block."),
    10706: (15, "Subqueries are not allowed in the OUTPUT clause."),
    10761: (16, "Invalid data type %.*ls in function %.*ls."),
    15010: (16, ("The database '%s' does not exist. Supply a valid database name. To see "
                 "available databases, use sys.databases.")),
    15123: (16, ("The configuration option '%s' does not exist, or it may be an advanced "
                 "option.")),
    16905: (16, "The cursor is already open."),
    16915: (16, "A cursor with the name '%.*ls' already exists."),
    16916: (16, "A cursor with the name '%.*ls' does not exist."),
    16917: (16, "Cursor is not open."),
    16924: (16, ("Cursorfetch: The number of variables declared in the INTO list must match "
                 "that of selected columns.")),
    16950: (16, "The variable '%.*ls' does not currently have a cursor allocated to it."),
    18054: (16, ("Error %d, severity %d, state %d was raised, but no message with that error "
                 "number was found in sys.messages. If error is larger than 50000, make sure "
                 "the user-defined message is added using sp_addmessage.")),
    35100: (16, ("Error number %ld in the THROW statement is outside the valid range. Specify "
                 "an error number in the valid range of 50000 to 2147483647.")),
    # --- general / binding
    102: (15, "Incorrect syntax near '%.*ls'."),
    127: (15, "A TOP N or FETCH rowcount value may not be negative."),
    1060: (15, ("The number of rows provided for a TOP or FETCH clauses row count parameter "
                "must be an integer.")),
    168: (15, ("The floating point value '%.*ls' is out of the range of computer "
               "representation (%d bytes).")),
    103: (15, "The identifier that starts with '%.*ls' is too long. Maximum length is 128."),
    105: (15, "Unclosed quotation mark after the character string '%.*ls'."),
    113: (15, "Missing end comment mark '*/'."),
    111: (15, "'%ls' must be the first statement in a query batch."),
    134: (15, ("The variable name '%.*ls' has already been declared. Variable names must be "
               "unique within a query batch or stored procedure.")),
    137: (15, 'Must declare the scalar variable "%.*ls".'),
    156: (15, "Incorrect syntax near the keyword '%.*ls'."),
    191: (15, ("Some part of your SQL statement is nested too deeply. Rewrite the query or "
               "break it up into smaller queries.")),
    178: (15, "A RETURN statement with a return value cannot be used in this context."),
    201: (16, ("Procedure or function '%.*ls' expects parameter '%.*ls', which was not "
               "supplied.")),
    207: (16, "Invalid column name '%.*ls'."),
    208: (16, "Invalid object name '%.*ls'."),
    217: (16, ("Maximum stored procedure, function, trigger, or view nesting level exceeded "
               "(limit 32).")),
    226: (16, "%ls statement not allowed within multi-statement transaction."),
    1088: (16, ('Cannot find the object "%.*ls" because it does not exist or you do not have '
                'permissions.')),
    229: (14, ("The %ls permission was denied on the object '%.*ls', database '%.*ls', schema "
               "'%.*ls'.")),
    230: (14, ("The %ls permission was denied on the column '%.*ls' of the object '%.*ls', "
               "database '%.*ls', schema '%.*ls'.")),
    262: (14, "%ls permission denied in database '%.*ls'."),
    300: (14, "%ls permission was denied on object '%.*ls', database '%.*ls'."),
    916: (14, ('The server principal "%.*ls" is not able to access the database "%.*ls" under '
               "the current security context.")),
    18456: (14, "Login failed for user '%.*ls'."),
    245: (16, "Conversion failed when converting the %ls value '%.*ls' to data type %ls."),
    266: (16, ("Transaction count after EXECUTE indicates a mismatching number of BEGIN and "
               "COMMIT statements. Previous count = %ld, current count = %ld.")),
    515: (16, ("Cannot insert the value NULL into column '%.*ls', table '%.*ls'; column does "
               "not allow nulls. %ls fails.")),
    547: (16, ("The %ls statement conflicted with the %ls constraint \"%.*ls\". The conflict "
               "occurred in database \"%.*ls\", table \"%.*ls\"%ls%.*ls%ls.")),
    911: (16, "Database '%.*ls' does not exist. Make sure that the name is entered correctly."),
    258: (15, "Cannot call methods on %ls."),
    8113: (16, ("Incorrect use of the XML data type method '%.*ls'. A mutator method is "
                "expected in this context.")),
    16948: (16, ("The variable '%.*ls' is not a cursor variable, but it is used in a place "
                 "where a cursor variable is expected.")),
    4060: (11, 'Cannot open database "%.*ls" requested by the login. The login failed.'),
    1205: (13, ("Transaction (Process ID %d) was deadlocked on %.*ls resources with another "
                "process and has been chosen as the deadlock victim. Rerun the transaction.")),
    1222: (16, "Lock request time out period exceeded."),
    1801: (16, "Database '%.*ls' already exists. Choose a different database name."),
    2627: (14, ("Violation of %ls constraint '%.*ls'. Cannot insert duplicate key in object "
                "'%.*ls'. The duplicate key value is %ls.")),
    2714: (16, "There is already an object named '%.*ls' in the database."),
    2812: (16, "Could not find stored procedure '%.*ls'."),
    3701: (11, ("Cannot drop the %S_MSG '%.*ls', because it does not exist or you do not have "
                "permission.")),
    3708: (16, "Cannot %ls the %ls '%.*ls' because it is a system %ls."),
    2760: (16, ("The specified schema name \"%.*ls\" either does not exist or you do not have "
                "permission to use it.")),
    209: (16, "Ambiguous column name '%.*ls'."),
    213: (16, "Column name or number of supplied values does not match table definition."),
    109: (15, ("There are more columns in the INSERT statement than values specified in the "
               "VALUES clause. The number of values in the VALUES clause must match the number "
               "of columns specified in the INSERT statement.")),
    110: (15, ("There are fewer columns in the INSERT statement than values specified in the "
               "VALUES clause. The number of values in the VALUES clause must match the number "
               "of columns specified in the INSERT statement.")),
    339: (16, "DEFAULT or NULL are not allowed as explicit identity values."),
    544: (16, ("Cannot insert explicit value for identity column in table '%.*ls' when "
               "IDENTITY_INSERT is set to OFF.")),
    1087: (15, 'Must declare the table variable "%.*ls".'),
    3726: (16, ("Could not drop object '%.*ls' because it is referenced by a FOREIGN KEY "
                "constraint.")),
    4403: (16, ("Cannot update the view or function '%.*ls' because it contains aggregates, "
                "or a DISTINCT or GROUP BY clause, or PIVOT or UNPIVOT operator.")),
    4405: (16, ("View or function '%.*ls' is not updatable because the modification affects "
                "multiple base tables.")),
    4406: (16, ("Update or insert of view or function '%.*ls' failed because it contains a "
                "derived or constant field.")),
    4426: (16, "View '%.*ls' is not updatable because the definition contains a UNION operator."),
    4427: (16, ('Cannot update the view "%.*ls" because it or a view it references was created '
                "with WITH CHECK OPTION and its definition contains the TOP clause.")),
    4436: (16, ("UNION ALL view '%.*ls' is not updatable because a partitioning column was not "
                "found.")),
    414: (16, ('UPDATE is not allowed because the statement updates view "%.*ls" which '
               "participates in a join and has an INSTEAD OF UPDATE trigger.")),
    415: (16, ('DELETE is not allowed because the statement updates view "%.*ls" which '
               "participates in a join and has an INSTEAD OF DELETE trigger.")),
    334: (16, ("The target table '%.*ls' of the DML statement cannot have any enabled triggers "
               "if the statement contains an OUTPUT clause without INTO clause.")),
    404: (16, ('The column reference "inserted.%.*ls" is not allowed because it refers to a base '
               "table that is not being modified in this statement.")),
    550: (16, ("The attempted insert or update failed because the target view either specifies "
               "WITH CHECK OPTION or spans a view that specifies WITH CHECK OPTION and one or "
               "more rows resulting from the operation did not qualify under the CHECK OPTION "
               "constraint.")),
    4701: (16, ("Cannot find the object \"%.*ls\" because it does not exist or you do not have "
                "permissions.")),
    4712: (16, ("Cannot truncate table '%.*ls' because it is being referenced by a FOREIGN KEY "
                "constraint.")),
    1913: (16, ("The operation failed because an index or statistics with name '%.*ls' already "
                "exists on %S_MSG '%.*ls'.")),
    3703: (11, ("Cannot drop the %S_MSG '%.*ls', because it does not exist or you do not have "
                "permission.")),
    4901: (16, ("ALTER TABLE only allows columns to be added that can contain nulls, or have a "
                "DEFAULT definition specified, or the column being added is an identity or "
                "timestamp column, or alternatively if none of the previous conditions are "
                "satisfied the table must be empty to allow addition of this column. Column "
                "'%.*ls' cannot be added to non-empty table '%.*ls' because it does not satisfy "
                "these conditions.")),
    4924: (16, ("ALTER TABLE ALTER COLUMN failed because column '%.*ls' does not exist in table "
                "'%.*ls'.")),
    1750: (10, "Could not create constraint or index. See previous errors."),
    1505: (16, ("The CREATE UNIQUE INDEX statement terminated because a duplicate key was found "
                "for the object name '%.*ls' and the index name '%.*ls'. The duplicate key value "
                "is %ls.")),
    1767: (16, "Foreign key '%.*ls' references invalid table '%.*ls'."),
    1776: (16, ("There are no primary or candidate keys in the referenced table '%.*ls' that "
                "match the referencing column list in the foreign key '%.*ls'.")),
    8101: (16, ("An explicit value for the identity column in table '%.*ls' can only be "
                "specified when a column list is used and IDENTITY_INSERT is ON.")),
    120: (15, ("The select list for the INSERT statement contains fewer items than the insert "
               "list. The number of SELECT values must match the number of INSERT columns.")),
    121: (15, ("The select list for the INSERT statement contains more items than the insert "
               "list. The number of SELECT values must match the number of INSERT columns.")),
    1911: (16, "Column name '%.*ls' does not exist in the target table or view."),
    2601: (14, ("Cannot insert duplicate key row in object '%.*ls' with unique index '%.*ls'. "
                "The duplicate key value is %ls.")),
    2705: (16, ("Column names in each table must be unique. Column name '%.*ls' in table "
                "'%.*ls' is specified more than once.")),
    8102: (16, "Cannot update identity column '%.*ls'."),
    8110: (16, "Cannot add multiple PRIMARY KEY constraints to table '%.*ls'."),
    141: (15, ("A SELECT statement that assigns a value to a variable must not be combined "
               "with data-retrieval operations.")),
    166: (15, ("'%ls' does not allow specifying the database name as a prefix to the object "
               "name.")),
    6852: (16, ("Attribute-centric column '%.*ls' must not come after a non-attribute-centric "
                "sibling in XML hierarchy in FOR XML PATH.")),
    6864: (16, ("Row tag omission (empty row tag name) cannot be used with attribute-centric "
                "FOR XML serialization.")),
    13605: (16, ("Column expressions and data sources without names or aliases cannot be "
                 "formatted as JSON text using FOR JSON clause. Add alias to the unnamed "
                 "column or table.")),
    13620: (16, ("ROOT option and WITHOUT_ARRAY_WRAPPER option cannot be used together in FOR "
                 "JSON. Remove one of these options.")),
    8158: (16, "'%.*ls' has more columns than were specified in the column list."),
    8159: (16, "'%.*ls' has fewer columns than were specified in the column list."),
    10709: (16, ("The number of columns for each row in a table value constructor must be the "
                 "same.")),
    1062: (15, ("The TOP N WITH TIES clause is not allowed without a corresponding ORDER BY "
                "clause.")),
    1038: (15, ("An object or column name is missing or empty. For SELECT INTO statements, "
                "verify each column has a name. For other statements, look for empty alias "
                "names. Aliases defined as \"\" or [] are not allowed. Change the alias to a "
                "valid name.")),
    3728: (16, "'%.*ls' is not a constraint."),
    4511: (16, ("Create View or Function failed because no column name was specified for "
                "column %d.")),
    5074: (16, "The %ls '%.*ls' is dependent on column '%.*ls'."),
    5011: (14, ("User does not have permission to alter database '%.*ls', the database does "
                "not exist, or the database is not in a state that allows access checks.")),
    8672: (16, ("The MERGE statement attempted to UPDATE or DELETE the same row more than once. "
                "This happens when a target row matches more than one source row. A MERGE "
                "statement cannot UPDATE/DELETE the same row of the target table multiple "
                "times. Refine the ON clause to ensure a target row matches at most one source "
                "row, or use the GROUP BY clause to group the source rows.")),
    545: (16, ("Explicit value must be specified for identity column in table '%.*ls' either "
               "when IDENTITY_INSERT is set to ON or when a replication user is inserting into a "
               "NOT FOR REPLICATION identity column.")),
    8106: (16, ("Table '%.*ls' does not have the identity property. Cannot perform SET "
                "operation.")),
    8107: (16, ("IDENTITY_INSERT is already ON for table '%.*ls'. Cannot perform SET operation "
                "for table '%.*ls'.")),
    1763: (16, "Cross-database foreign key references are not supported. Foreign key '%.*ls'."),
    40000: (16, "%ls is not supported."),
    3902: (16, "The COMMIT TRANSACTION request has no corresponding BEGIN TRANSACTION."),
    3903: (16, "The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION."),
    3930: (16, ("The current transaction cannot be committed and cannot support operations that "
                "write to the log file. Roll back the transaction.")),
    8114: (16, "Error converting data type %ls to %ls."),
    8115: (16, "Arithmetic overflow error converting %ls to data type %ls."),
    8134: (16, "Divide by zero error encountered."),
    8152: (16, "String or binary data would be truncated."),
    8155: (16, "No column name was specified for column %d of '%.*ls'."),
    1781: (16, "Column already has a DEFAULT bound to it."),
    4917: (16, "Constraint '%.*ls' does not exist."),
    2744: (16, ("Multiple identity columns specified for table '%.*ls'. Only one identity "
                "column per table is allowed.")),
    50000: (16, "%s"),
    # --- values: types, conversions, operators, built-in functions, XML (values/)
    131: (15, ("The size (%d) given to the %S_MSG '%.*ls' exceeds the maximum allowed for any "
               "data type (%d).")),
    155: (15, "'%.*ls' is not a recognized %ls option."),
    174: (15, "The %.*ls function requires %d argument(s)."),
    189: (15, "The %ls function requires %d to %d arguments."),
    192: (16, "The scale must be less than or equal to the precision."),
    195: (15, "'%.*ls' is not a recognized %S_MSG."),
    206: (16, "Operand type clash: %ls is incompatible with %ls"),
    220: (16, "Arithmetic overflow error for data type %ls, value = %ld."),
    235: (16, "Cannot convert a char value to money. The char value has incorrect syntax."),
    241: (16, "Conversion failed when converting date and/or time from character string."),
    242: (16, ("The conversion of a %ls data type to a %ls data type resulted in an out-of-range "
               "value.")),
    244: (16, ("The conversion of the %ls value '%.*ls' overflowed an %ls column. Use a larger "
               "integer column.")),
    248: (16, "The conversion of the %ls value '%.*ls' overflowed an int column."),
    257: (16, ("Implicit conversion from data type %ls to %ls is not allowed. Use the CONVERT "
               "function to run this query.")),
    281: (16, "%d is not a valid style number when converting from %ls to a character string."),
    289: (16, ("Cannot construct data type %ls, some of the arguments have values which are not "
               "valid.")),
    305: (16, ("The XML data type cannot be compared or sorted, except when using the IS NULL "
               "operator.")),
    402: (16, "The data types %ls and %ls are incompatible in the %ls operator."),
    517: (16, "Adding a value to a '%ls' column caused an overflow."),
    701: (17, "There is insufficient system memory in resource pool '%ls' to run this query."),
    529: (16, "Explicit conversion from data type %ls to %ls is not allowed."),
    530: (16, ("The statement terminated. The maximum recursion %d has been exhausted before "
               "statement completion.")),
    310: (15, ("The value %d specified for the MAXRECURSION option exceeds the allowed maximum "
               "of %d.")),
    535: (16, ("The %ls function resulted in an overflow. The number of dateparts separating two "
               "date/time instances is too large. Try to use %ls with a less precise datepart.")),
    493: (16, ("The column '%.*ls' that was returned from the nodes() method cannot be used "
               "directly. It can only be used with one of the four XML data type methods, "
               "exist(), nodes(), query(), and value(), or in IS NULL and IS NOT NULL checks.")),
    536: (16, "Invalid length parameter passed to the %ls function."),
    2209: (16, "XQuery [%ls]: Syntax error near '%ls'"),
    2226: (16, "XQuery [%ls]: The target of '%ls' must be a single node, found '%ls'"),
    2337: (16, "XQuery [%ls]: The target of 'replace' must be at most one node, found '%ls'"),
    2389: (16, ("XQuery [%ls]: '%ls' requires a singleton (or empty sequence), found operand of "
                "type '%ls'")),
    2395: (16, "XQuery [%ls]: There is no function '%ls'"),
    2715: (16, "Column, parameter, or variable #%d: Cannot find data type %.*ls."),
    2750: (16, ("Column or parameter #%d: Specified column precision %d is greater than the "
                "maximum precision of %d.")),
    3623: (16, "An invalid floating point operation occurred."),
    8116: (16, "Argument data type %ls is invalid for argument %d of %ls function."),
    8117: (16, "Operand data type %ls is invalid for %ls operator."),
    8169: (16, "Conversion failed when converting from a character string to uniqueidentifier."),
    8170: (16, "Insufficient result space to convert uniqueidentifier value to char."),
    9400: (16, "XML parsing: line %d, character %d, unexpected end of input"),
    9402: (16, "XML parsing: line %d, character %d, unable to switch the encoding"),
    9410: (16, "XML parsing: line %d, character %d, whitespace expected"),
    9411: (16, "XML parsing: line %d, character %d, semicolon expected"),
    9420: (16, "XML parsing: line %d, character %d, illegal xml character"),
    9421: (16, "XML parsing: line %d, character %d, illegal name character"),
    9436: (16, "XML parsing: line %d, character %d, end tag does not match start tag"),
    9438: (16, "XML parsing: line %d, character %d, text/xmldecl not at the beginning of input"),
    9455: (16, "XML parsing: line %d, character %d, illegal qualified name character"),
    9809: (16, "The style %d is not supported for conversions from %ls to %ls."),
    9810: (16, "The datepart %ls is not supported by date function %ls for data type %ls."),
    9818: (16, "The culture parameter '%.*ls' provided in the function call is not supported."),
    9819: (16, "Error converting string value '%.*ls' into data type %ls using culture '%.*ls'."),
    9820: (16, "The timezone provided to builtin function %ls is invalid."),
    9828: (16, ("The second and third arguments of the TRANSLATE built-in function must contain "
                "an equal number of characters.")),
    13607: (16, ("JSON path is not properly formatted. Unexpected character '%.*ls' is found at "
                 "position %d.")),
    13608: (16, "Property cannot be found on the specified JSON path."),
    13611: (16, ("Value referenced by JSON path is not an array or object and cannot be "
                 "opened with OPENJSON.")),
    13609: (16, ("JSON text is not properly formatted. Unexpected character '%.*ls' is found at "
                 "position %d.")),
    13623: (16, "Scalar value cannot be found in the specified JSON path."),
    13624: (16, "Object or array cannot be found in the specified JSON path."),
    13625: (16, "String value in the specified JSON path would be truncated."),
    # --- Service Broker engine (texts marked [U] are this implementation's wording: the
    # reference gives the number but not the text)
    259: (16, "Ad hoc updates to system catalogs are not allowed."),
    2378: (16, "XML Schema syntax error: %ls"),                                      # [U]
    3729: (16, "Cannot %ls '%.*ls' because it is being referenced by object '%.*ls'."),
    7862: (16, ("An endpoint of the requested type already exists. Only one endpoint of this "
                "type is supported. Use ALTER ENDPOINT or DROP the existing endpoint and "
                "execute the CREATE ENDPOINT command.")),
    8440: (16, ("The failure code %d of END CONVERSATION WITH ERROR is not valid: it must be "
                "greater than zero (negative codes are reserved for Service Broker).")),  # [U]
                9659: (16, "The ADDRESS clause is required for route '%.*ls'."),                  # [U]
    9661: (16, ("The MIRROR_ADDRESS clause requires the SERVICE_NAME and BROKER_INSTANCE "
                "clauses and cannot be used with ADDRESS 'LOCAL' or 'TRANSPORT'.")),      # [U]
                9662: (16, "The BROKER_INSTANCE clause requires the SERVICE_NAME clause."),       # [U]
                9743: (16, "The BROKER_INSTANCE '%.*ls' is not a valid broker instance identifier."),  # [U]
    9744: (16, ("The address '%.*ls' is not valid. Specify 'LOCAL', 'TRANSPORT' or "
                "'TCP://host:port'.")),                                                  # [U]
                9745: (16, "The SERVICE_NAME clause cannot be used with ADDRESS = 'TRANSPORT'."),  # [U]
    9746: (16, ("The route LIFETIME %d is outside the allowable range of 1 to 2147483647 "
                "seconds.")),                                                            # [U]
                9747: (16, "The ADDRESS and MIRROR_ADDRESS of a route must be different."),       # [U]
    15151: (16, ("Cannot find the %S_MSG '%.*ls', because it does not exist or you do not "
                 "have permission.")),
    2749: (16, ("Identity column '%.*ls' must be of data type int, bigint, smallint, "
                "tinyint, or decimal or numeric with a scale of 0, and constrained to be "
                "nonnullable.")),
    1084: (15, "'%.*ls' is an invalid event type."),
    1098: (16, "The specified event type(s) is/are not valid on the specified target object."),
    9717: (16, ("Cannot enable stored procedure activation on queue '%.*ls'. Event "
                "notification for queue_activation is already configured on this queue.")),
    9718: (16, ("Cannot create event notification for queue_activation on queue '%.*ls'. "
                "Stored procedure activation is already configured on this queue.")),  # [U]
    # --- schemas, sequences, synonyms, alias types, computed columns, triggers (DDL)
    15530: (16, 'The object with name "%.*ls" already exists.'),
    8145: (16, "%.*ls is not a parameter for procedure %.*ls."),
    3732: (16, ("Cannot drop type '%.*ls' because it is being referenced by object '%.*ls'. "
                "There may be other objects that reference this type.")),
    218: (16, ("Could not find the type '%.*ls'. Either it does not exist or you do not have "
               "the necessary permission.")),
    219: (16, ("The type '%.*ls' already exists, or you do not have permission to create "
               "it.")),
    271: (16, ('The column "%.*ls" cannot be modified because it is either a computed column '
               "or is the result of a UNION operator.")),
    1759: (16, ("Computed column '%.*ls' in table '%.*ls' is not allowed to be used in another "
                "computed-column definition.")),
    8197: (16, "The object '%.*ls' does not exist or is invalid for this operation."),
    2111: (16, ("Cannot %ls trigger '%.*ls' on %ls '%.*ls' because an INSTEAD OF %ls trigger "
                "already exists on this object.")),
    2112: (16, ("Cannot create trigger '%.*ls' on view '%.*ls' because the view is defined "
                "with CHECK OPTION.")),
    3609: (16, "The transaction ended in the trigger. The batch has been aborted."),
    3616: (16, ("An error was raised during trigger execution. The batch has been aborted and "
                "the user transaction, if any, has been rolled back.")),
    5313: (16, "Synonym '%.*ls' refers to an invalid object."),
    11700: (16, "The increment for sequence object '%.*ls' cannot be zero."),
    11702: (16, ("The sequence object '%.*ls' must be of data type int, bigint, smallint, "
                 "tinyint, or decimal or numeric with a scale of 0, or any user-defined data "
                 "type that is based on one of the above integer data types.")),
    11703: (16, ("The start value for sequence object '%.*ls' must be between the minimum and "
                 "maximum value of the sequence object.")),
    11704: (16, ("The current value '%.*ls' for sequence object '%.*ls' must be between the "
                 "minimum and maximum value of the sequence object.")),
    11705: (16, ("The minimum value for sequence object '%.*ls' must be less than its maximum "
                 "value.")),
    11706: (16, "The cache size for sequence object '%.*ls' must be greater than 0."),
    11708: (16, "An invalid value was specified for argument '%.*ls' for the given data type."),
    11709: (16, "The 'RESTART WITH' argument cannot be used in a CREATE SEQUENCE statement."),
    11710: (16, "Argument 'START WITH' cannot be used in an ALTER SEQUENCE statement."),
    11728: (16, ("The sequence object '%.*ls' has reached its minimum or maximum value. "
                 "Restart the sequence object to allow new values to be generated.")),
    11732: (16, ("The requested range for sequence object '%.*ls' exceeds the maximum or "
                 "minimum limit. Retry with a smaller range.")),
    11733: (16, "Parameter '%.*ls' must be a positive integer."),
    # --- Service Broker (reference §6)
    8403: (16, ("The message type '%.*ls' is specified more than once. Remove the duplicate "
                "message type.")),
    8406: (16, ("The dialog lifetime can not be NULL. Specify a valid dialog lifetime value from "
                "%d to %d.")),
    8408: (16, "Target service '%.*ls' does not support contract '%.*ls'."),
    8410: (16, "The conversation timer cannot be set beyond the conversation's lifetime."),
    8411: (16, ("The dialog lifetime value of %d is outside the allowable range of %d to %d. "
                "Specify a valid dialog lifetime value.")),
    8415: (16, ("The activated task was aborted because the invoked stored procedure '%ls' did "
                "not issue COMMIT or ROLLBACK on one or more transactions that it begun.")),
    8418: (16, "The conversation handle is missing. Specify a conversation handle."),
    8419: (16, ("Both the error code and the description must be provided for END CONVERSATION "
                "WITH ERROR. Neither value can be NULL.")),
    8420: (16, "The conversation group is missing. Specify a conversation group."),
    8421: (16, "The service name is missing. Specify a service name."),
    8422: (16, "The error description is missing. Specify a description of the error."),
    8423: (16, 'The service "%.*ls" is not found.'),
    8424: (16, ("The error code and error description are missing. Specify both the error code "
                "and description of the error.")),
    8425: (16, "The service contract '%.*ls' is not found."),
    8426: (16, 'The conversation handle "%.*ls" is not found.'),
    8427: (16, ("The conversation endpoint is not in a valid state for END CONVERSATION. The "
                "current endpoint state is '%ls'.")),
    8428: (16, 'The message type "%.*ls" is not found.'),
    8429: (16, ("The conversation endpoint is not in a valid state for SEND. The current endpoint "
                "state is '%ls'.")),
    8430: (16, "The message body failed the configured validation."),
    8431: (16, "The message type '%.*ls' is not part of the service contract."),
    8432: (16, ("The message cannot be sent because the message type '%.*ls' is marked SENT BY "
                "TARGET in the contract, however this service is an Initiator.")),
    8433: (16, ("The message body may not be NULL. A zero-length UNICODE or binary string is "
                "allowed.")),
    8434: (16, ("The message cannot be sent because the message type '%.*ls' is marked SENT BY "
                "INTITIATOR in the contract, however this service is a Target.")),
    8436: (16, 'The conversation group "%.*ls" is not found.'),
    8437: (16, ("The message received was sent by a Target service, but the message type '%.*ls' "
                "is marked SENT BY INITIATOR in the contract.")),
    8438: (16, ("The conversation endpoint is not in a valid state for MOVE CONVERSATION. The "
                "current endpoint state is '%ls'.")),
    8439: (16, "The destination conversation group '%.*ls' is invalid."),
    8442: (16, ("There is no Service Broker active in the database. Change to a database context "
                "that contains a Service Broker.")),
    8447: (16, ("A RECEIVE statement that assigns a value to a variable must not be combined "
                "with data retrieval operations.")),
    8450: (16, ("Assignments in the RECEIVE projection are not allowed in conjunction with the "
                "INTO clause.")),
    8457: (16, ("The message received was sent by the initiator of the conversation, but the "
                "message type '%.*ls' is marked SENT BY TARGET in the contract.")),
    8458: (16, ("The conversation endpoint is not in a valid state for BEGIN CONVERSATION TIMER. "
                "The current endpoint state is '%ls'.")),
    8462: (16, ("The remote conversation endpoint is either in a state where no more messages "
                "can be exchanged, or it has been dropped.")),
    8469: (16, "Remote service has been altered."),
    8470: (16, "Remote service has been dropped."),
    8487: (16, "The remote service contract has been dropped."),
    8489: (16, "The dialog has exceeded the specified LIFETIME."),
    8490: (16, "Cannot find the remote service '%.*ls' because it does not exist."),
    8492: (16, ("The service contract '%.*ls' must have at least one message SENT BY INITIATOR "
                "or ANY.")),
    8493: (16, "The alter of service '%.*ls' must change the queue or at least one contract."),
    8494: (16, "You do not have permission to access the service '%.*ls'."),
    8495: (16, ("The conversation has already been acknowledged by another instance of this "
                "service.")),
    8498: (16, ("The remote service has sent a message of type '%.*ls' that is not part of the "
                "local contract.")),
    9610: (16, ("The service '%.*ls' in the FROM SERVICE clause must match the service '%.*ls' "
                "referenced by %s = '%.*ls'.")),
    9615: (16, ("A message of type '%.*ls' failed XML validation on the target service. %.*ls "
                "This occurred in the message with Conversation ID '%.*ls', Initiator: %d, and "
                "Message sequence number: %I64d.")),
    9616: (16, ("A message of type '%.*ls' was received and failed XML validation. %.*ls This "
                "occurred in the message with Conversation ID '%.*ls', Initiator: %d, and "
                "Message sequence number: %I64d.")),
    9617: (16, 'The service queue "%.*ls" is currently disabled.'),
    9618: (16, ("The message cannot be sent because the service queue '%.*ls' associated with "
                "the dialog is currently disabled and retention is on.")),
    9619: (16, "There is already a remote service binding for the service '%.*ls'."),
    9620: (16, "The activation stored procedure '%.*ls' is invalid. Functions are not allowed."),
    9648: (20, ("The queue '%.*ls' has been enabled for activation, but the MAX_QUEUE_READERS is "
                "zero. No procedures will be activated. Consider increasing the number of "
                "MAX_QUEUE_READERS.")),
    9653: (16, ("The signature of activation stored procedure '%.*ls' is invalid. Parameters are "
                "not allowed.")),
    9666: (10, "The %S_MSG protocol transport is disabled or not configured."),
    9719: (16, "The database for this conversation endpoint is attached or restored."),
    9724: (10, "The activated proc '%ls' running on queue '%ls' output the following: '%.*ls'"),
    9742: (16, ("The activation stored procedure '%.*ls' is invalid. Temporary procedures may "
                "not be configured for activation.")),
    9727: (16, ("Dialog security is not available for this conversation because there is no "
                "remote service binding for the target service. Create a remote service "
                "binding, or specify ENCRYPTION = OFF in the BEGIN DIALOG statement.")),
    9749: (10, "Target queue is busy; message(s) queued for delivery."),
    9750: (10, ("No route matches the destination service name for this conversation. Create a "
                "route to the destination service name for messages in this conversation to be "
                "delivered.")),
    9753: (10, "The target service broker is unreachable."),
    9784: (10, ("Service Broker received an error message on this conversation. Service "
                "Broker will not transmit the message; it will be held until the application "
                "ends the conversation.")),
    9791: (10, "The broker is disabled in the sender's database."),
    9793: (10, ("The target service name could not be found. Ensure that the service name is "
                "specified correctly and/or the routing information has been supplied.")),
    9796: (10, ("The target service name matched a LOCAL route, but there is no service by that "
                "name in the local SQL Server instance.")),
    28050: (10, ("The session keys for this conversation could not be created or accessed. "
                 "The database master key is required for this operation.")),
    28085: (16, "The activated task was ended because the associated queue was dropped."),
    28086: (16, ("The activated task was ended because either the queue or activation was "
                 "disabled.")),
    28087: (16, ("The activated task was aborted because the invoked stored procedure '%ls' did "
                 "not execute RECEIVE.")),
    28088: (16, ("The activated task was aborted due to an error (Error: %i, State %i). Check the "
                 "error log for more information.")),
    # --- security: principals, certificates, keys, permissions
    3716: (16, "The %S_MSG '%.*ls' cannot be dropped because it is bound to one or more %S_MSG."),
    4606: (16, "Granted or revoked privilege %ls is not compatible with object."),
    4611: (16, "To revoke or deny grantable privileges, specify the CASCADE option."),
    15007: (16, "'%s' is not a valid login or you do not have permission."),
    15023: (16, "User, group, or role '%s' already exists in the current database."),
    15002: (16, "The procedure '%s' cannot be executed within a transaction."),
    15600: (15, "An invalid parameter or option was specified for procedure '%s'."),
    15422: (16, "Application roles can only be activated at the ad hoc level."),
    15431: (16, "You must specify the @rolename parameter."),
    15025: (16, "The server principal '%s' already exists."),
    15063: (16, "The login already has an account under a different user name."),
    15141: (16, "The server principal owns one or more %ls and cannot be dropped."),
    15109: (16, "Cannot change the owner of the master, model, tempdb or distribution database."),
    15110: (16, "The proposed new database owner is already a user or aliased in the database."),
    15174: (16, ("Login '%.*ls' owns one or more database(s). Change the owner of the "
                 "database(s) before dropping the login.")),
    15138: (16, "The database principal owns a %S_MSG in the database, and cannot be dropped."),
    15150: (16, "Cannot %S_MSG the %S_MSG '%.*ls'."),
    15183: (16, "The database principal owns objects in the database and cannot be dropped."),
    15344: (16, "Ownership change for %S_MSG is not supported."),
    15346: (16, ("Cannot change owner for an object that is owned by a parent object. Change the "
                 "owner of the parent object instead.")),
    15208: (16, ("The certificate, asymmetric key, or private key file is not valid or does not "
                 "exist; or you do not have permissions for it.")),
    15232: (16, ("A certificate with name '%.*ls' already exists or this certificate already has "
                 "been added to the database.")),
    15240: (16, ("Cannot write into file '%.*ls'. Verify that you have write permissions, that "
                 "the file path is valid, and that the file does not already exist.")),
    15284: (16, ("The database principal has granted or denied permissions to objects in the "
                 "database and cannot be dropped.")),
    15313: (16, "The key is not encrypted using the specified decryptor."),
    15401: (16, "Windows NT user or group '%s' not found. Check the name again."),
    15406: (16, ('Cannot execute as the server principal because the principal "%.*ls" does not '
                 "exist, this type of principal cannot be impersonated, or you do not have "
                 "permission.")),
    15466: (16, "An error occurred during decryption."),
    15517: (16, ('Cannot execute as the database principal because the principal "%.*ls" does '
                 "not exist, this type of principal cannot be impersonated, or you do not have "
                 "permission.")),
    15578: (16, ("There is already a master key in the database. Please drop it before "
                 "performing this statement.")),
    15580: (16, "Cannot drop master key because %S_MSG '%.*ls' is encrypted by it."),
    15581: (16, ("Please create a master key in the database or open the master key in the "
                 "session before performing this operation.")),
    15014: (16, "The role '%s' does not exist in the current database."),
    15144: (16, "The role has members. It must be empty before it can be dropped."),
    15405: (16, "Cannot use the special principal '%s'."),
    15410: (16, "User or role '%s' does not exist in this database."),
    15412: (16, "'%s' is not a known fixed role."),
    15021: (16, "Invalid value given for parameter %.*ls. Specify a valid parameter value."),
    15419: (16, "Supplied parameter sid should be binary(16)."),
    15433: (16, "Supplied parameter sid is in use."),
    15009: (16, ("The object '%.*ls' does not exist in database '%.*ls' or is invalid for this "
                 "operation.")),
    15197: (16, "There is no text for object '%.*ls'."),
    # issue 19 (sec2)
    1020: (16, ("Sub-entity lists (such as column or security expressions) cannot be specified "
                "for entity-level permissions.")),
    4613: (16, "Grantor does not have GRANT permission."),
    15247: (16, "User does not have permission to perform this action."),
    # issue 20 (tls)
    28034: (16, ("Connection handshake failed. The login '%.*ls' does not have CONNECT "
                 "permission on the endpoint. State %d.")),
    28099: (16, ("Windows authentication is not available for Service Broker endpoints in "
                 "this instance. Use AUTHENTICATION = CERTIFICATE certificate_name.")),
}
