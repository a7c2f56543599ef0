SELECT name FORM sys.objects
