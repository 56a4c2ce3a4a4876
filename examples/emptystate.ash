# Empty states and error cells: EmptyStateViewController (seed 000) as the empty list's background, its button's handler, and DataSourceController's error cell (seed 002).
# Step through it with `archsh --step --tour emptystate`; the suite checks its output.

## An empty list

# A data source with no sections has a totalRowCount of 0: DataSourceController asks its
# delegate for backgroundEmptyView(for:) and turns the separators off.
ds new todo
# With no empty state set, the delegate gives nothing, and the table view shows a blank box.
ds render todo
expect contains "separators are off"

## EmptyStateViewController

# Seed 000's EmptyStateViewController has a view model of a message, an action text and an
# action handler. Here the handler adds a first row with add(row:at:) at [0, 0].
ds empty-state todo 'Nothing to do yet' --button 'Add a task' --action 'add-row:Buy milk'
# The empty state is the background now: its message, and its button.
ds render todo
expect contains "[ Add a task ]"
# `ds state` says the collection is empty, which is why the background shows.
ds state todo
expect contains "empty"

## The button's tap

# A tap on the button runs the action handler: a real mutation, which notifies the delegate,
# and the collection state goes from empty to nonEmpty.
ds tap todo
expect contains "TableViewDataSource: collectionState nonEmpty"
# With a row, the background is gone, and so is the button: tapping it now is an error.
ds tap todo
expect fails "so its empty state is not shown"

## Error cells

# The new row is Text, and no cell data controller is registered for Text: DataSourceController
# draws the error cell, "Error: missing model or data controller at [s, r]".
ds render todo
expect contains "Error: missing model or data controller at [0, 0]"
# register(dataController:for:) matches the model type exactly; once Text has a controller,
# the row draws as a BasicCell.
ds register todo Text BasicCell
ds render todo
expect contains "Buy milk"

## A button that loads products

# A second list starts empty too; its button loads the example app's products, one section per
# family, fetched over HTTP from the demo API the first time (update(allSections:)).
ds new shop
ds empty-state shop 'No products yet' --button 'Load products' --action products
ds tap shop
expect contains "loaded 15 products"
# register(dataController:for:) picks DetailCell for the products, which shows their prices.
ds register shop Product DetailCell
ds render shop --count 4
