# TableViewDataSource (Lickability, seed 000): a collection shown as rows, whose delegate hears only when the collection goes from empty to non-empty and back.
# Step through it with `archsh --step --tour tableview`; the suite checks its output.

## An empty collection
# A data source with no rows: its collectionState is empty.
ds new list
ds state list
expect contains "empty"

## add(element:) and the transitions
# add(element:) returns the new IndexPath; the first element moves the collection from empty to
# nonEmpty, and the delegate is told of that transition.
ds row add list 0 0 'First element'
expect contains "TableViewDataSource: collectionState nonEmpty"
# A second element is no transition: the delegate hears nothing about the state.
ds row add list 0 1 'Second element'
ds state list
expect contains "nonEmpty"

## element(at:)
# element(at:) reads the model at an index path.
ds model list 0 1
expect contains "Second element"
# Out of range, the seed's element(at:) logs an assertion and the cell is blank; here
# modelObject(at:) gives nil, and says which index was asked for.
ds model list 0 7
expect contains "nil"

## removeElement(at:)
# Removing the last element moves the collection back to empty: another transition.
ds row remove list 0 1
ds row remove list 0 0
expect contains "TableViewDataSource: collectionState empty"
ds render list
