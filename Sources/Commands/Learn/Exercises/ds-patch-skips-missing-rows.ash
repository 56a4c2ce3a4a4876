# A patch never grows a section
#: seed 002
#: level 1
#: goal Make groceries' only section hold exactly "Oat milk", "Rye bread" and "Eggs", in that order.
#: hint 'help ds rows patch' says what happens to an index path that has no row.
#: hint Watch the ~ line after a patch: it lists only the rows that really changed. A path past the end of a section is skipped, not appended.
#: hint Patch the two rows that exist (ds rows patch groceries 0-0='Oat milk' 0-1='Rye bread'), then add the third with ds row add groceries 0 2 Eggs; or replace them all with ds rows set groceries 0 'Oat milk' 'Rye bread' Eggs.
#: why update(rows: [IndexPath: Any]) replaces only rows that exist: a path past the end of its section is skipped without an error, and the delegate hears mutated(rows:) for the changed paths only. add(row:at:) is the opposite: it appends a row whose index is out of bounds.

## setup
ds new groceries --rows Milk Bread
ds register groceries Text BasicCell

## check
ds count groceries
expect contains "total_row_count:  3"
ds model groceries 0 0
expect contains "Oat milk"
ds model groceries 0 1
expect contains "Rye bread"
ds model groceries 0 2
expect contains "Eggs"

## solution
ds rows patch groceries 0-0='Oat milk' 0-1='Rye bread'
ds row add groceries 0 2 Eggs

## wrong
ds rows patch groceries 0-0='Oat milk' 0-1='Rye bread' 0-2=Eggs
