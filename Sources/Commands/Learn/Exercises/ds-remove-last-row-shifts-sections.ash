# The last row takes its section along
#: seed 002
#: level 2
#: goal Remove the rows "Old note" (now at 0-0) and "Spam" (now at 2-0) from todo, so that only Today is left, still holding "Buy milk" and "Call Ada".
#: hint 'help ds row remove' says what happens when a section loses its last row.
#: hint "Old note" is the only row of Archive. After it goes, where is "Spam"? 'ds count todo' and 'ds model todo S R' tell you.
#: hint Remove from the end first (ds row remove todo 2 0, then ds row remove todo 0 0), or remove 0-0 and then 1-0.
#: why remove(rowAt:) removes a section that has lost its last row, so every later section moves up one index, and it always tells the delegate mutated(all). A removal at an index path that no longer exists fails silently: no error, no change, no notification.

## setup
ds new todo --rows 'Old note'
ds section data todo 0 --header Archive
ds section add todo --header Today --rows 'Buy milk' 'Call Ada'
ds section add todo --header Trash --rows 'Spam'
ds register todo Text BasicCell

## check
ds count todo
expect contains "total_row_count:  2"
ds model todo 0 0
expect contains "Buy milk"
ds model todo 0 1
expect contains "Call Ada"

## solution
ds row remove todo 0 0
ds row remove todo 1 0

## wrong
ds row remove todo 0 0
ds row remove todo 2 0
