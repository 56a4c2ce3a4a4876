# A row that makes its own section
#: seed 002
#: level 1
#: goal Put "Pay rent" in todo as the only row of a new third section, after Later, while Today and Later keep their rows. Use 'ds row add' only: no 'ds section' command.
#: forbid ds section
#: hint 'help ds row add' says what add(row:at:) does with each kind of index path.
#: hint A row index past the end of a section only appends to that section. Which index decides whether a new section appears?
#: hint Ask for a section that does not exist: ds row add todo 2 0 'Pay rent' (any section index of 2 or more does the same).
#: why add(row:at:) never fails: a section index out of bounds appends a new one-row section at the end (whatever the index, even 99) and tells the delegate mutated(all), although the original's documentation says it notifies the section; a row index out of bounds only appends to an existing section.

## setup
ds new todo --rows 'Buy milk' 'Call Ada'
ds section data todo 0 --header Today
ds section add todo --header Later --rows 'Book dentist'
ds register todo Text BasicCell

## check
ds count todo
expect contains "rows_per_section: 2, 1, 1"
ds model todo 2 0
expect contains "Pay rent"

## solution
ds row add todo 2 0 'Pay rent'

## wrong
ds row add todo 1 5 'Pay rent'

## cheat
ds section add todo --rows 'Pay rent'
