# An empty list that keeps its sections
#: seed 002
#: level 2
#: goal Make todo's table view show the background message "All done!" while the data source keeps both of its sections, Today and Tomorrow.
#: hint 'help ds background' and 'help ds render': when does the delegate's background view appear?
#: hint The background is shown only while totalRowCount is 0, whatever the number of sections. Removing each section's last row would remove the section too; which command empties a section but keeps it?
#: hint ds background todo 'All done!', then ds rows set todo 0 and ds rows set todo 1 with no rows.
#: why DataSourceController tests emptiness with totalRowCount == 0, not the number of sections: setting a background view shows nothing while there are rows, and sections that are all empty, headers and all, still give the empty state with the separators turned off. update(rows:atSection:) with no rows empties a section and keeps it, where remove(rowAt:) would drop it.

## setup
ds new todo --rows 'Buy milk' 'Call Ada'
ds section data todo 0 --header Today
ds section add todo --header Tomorrow --rows 'Book dentist'
ds register todo Text BasicCell

## check
ds render todo
expect contains "All done!"
ds count todo
expect contains "rows_per_section: 0, 0"

## solution
ds background todo 'All done!'
ds rows set todo 0
ds rows set todo 1

## wrong
ds background todo 'All done!'
