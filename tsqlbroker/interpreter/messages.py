"""sys.messages texts of the errors the interpreter raises, added to :data:`errors.MESSAGES`.

They are registered here (only numbers not already present) so that the interpreter does not
edit the shared ``errors.py`` while others extend it; :func:`tsqlbroker.errors.tsql_error`
finds them like any other text.
"""

from __future__ import annotations

from tsqlbroker.errors import MESSAGES

INTERPRETER_MESSAGES: dict[int, tuple[int, str]] = {
    119: (15, ("Must pass parameter number %d and subsequent parameters as '@name = value'. "
               "After the form '@name = value' has been used, all subsequent parameters must "
               "be passed in the form '@name = value'.")),
    141: (15, ("A SELECT statement that assigns a value to a variable must not be combined "
               "with data-retrieval operations.")),
    132: (15, ("The label '%.*ls' has already been declared. Label names must be unique within "
               "a query batch or stored procedure.")),
    133: (15, ("A GOTO statement references the label '%.*ls' but the label has not been "
               "declared.")),
    135: (15, "Cannot use a BREAK statement outside the scope of a WHILE statement."),
    136: (15, "Cannot use a CONTINUE statement outside the scope of a WHILE statement."),
    213: (16, "Column name or number of supplied values does not match table definition."),
    214: (16, "Procedure expects parameter '%ls' of type '%ls'."),
    313: (16, ("An insufficient number of arguments were supplied for the procedure or "
               "function %.*ls.")),
    512: (16, ("Subquery returned more than 1 value. This is not permitted when the subquery "
               "follows =, !=, <, <= , >, >= or when the subquery is used as an expression.")),
    628: (16, "Cannot issue SAVE TRANSACTION when there is no active transaction."),
    1087: (15, 'Must declare the table variable "%.*ls".'),
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
    6401: (16, "Cannot roll back %.*ls. No transaction or savepoint of that name was found."),
    8143: (16, "Parameter '%.*ls' was supplied multiple times."),
    6104: (16, "Cannot use KILL to kill your own process."),
    6106: (16, "Process ID %d is not an active process ID."),
    6107: (14, "Only user processes can be killed."),
    6115: (16, "KILL command cannot be used inside user transactions."),
    6120: (16, ("Status report cannot be obtained. Rollback operation for Process ID %d is not "
                "in progress.")),
    15010: (16, ("The database '%s' does not exist. Supply a valid database name. To see "
                 "available databases, use sys.databases.")),
    15123: (16, ("The configuration option '%s' does not exist, or it may be an advanced "
                 "option.")),
    8144: (16, "Procedure or function %.*ls has too many arguments specified."),
    8145: (16, "%.*ls is not a parameter for procedure %.*ls."),
    8146: (16, "Procedure %.*ls has no parameters and arguments were supplied."),
    8162: (16, ('The formal parameter "%.*ls" was not declared as an OUTPUT parameter, but the '
                'actual parameter passed in requested output.')),
    8164: (16, "An INSERT EXEC statement cannot be nested."),
    8178: (16, ("The parameterized query '%.*ls' expects the parameter '%.*ls', which was not "
                "supplied.")),
    10704: (15, "To rethrow an error, a THROW statement must be used inside a CATCH block."),
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
}

for _number, _entry in INTERPRETER_MESSAGES.items():
    MESSAGES.setdefault(_number, _entry)
