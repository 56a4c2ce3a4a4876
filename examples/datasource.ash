# DataSourceController (peredaniel, seed 002): sections of rows, cell data controllers registered
# per model type, and mutations that tell the delegate what to reload. There is no UIKit here, so
# the table view and the collection view are drawn as text.
# Run it with `archsh --db :memory: --echo -f examples/datasource.ash`; the suite checks its output.

## Sections and cells
# The example app's product list: one section per family, from the product cache (the demo API's
# fifteen example products are fetched into it first).
ds new shop --products
ds count shop

# Nothing is registered yet, so every cell is the error cell.
ds render shop --count 2
expect contains "Error: missing model or data controller at [0, 0]"

# register(dataController:for:) matches the model type exactly; registering again overwrites.
ds register shop Product BasicCell
ds register shop Product DetailCell
ds render shop --from 3 --count 4

## Row mutations
# Row mutations, each with the notification the delegate receives.
# Inserting into a section notifies that section...
ds row add shop 0 0 'Gift card'
# ...a text row has no registration yet, until Text gets one...
ds model shop 0 0
ds register shop Text BasicCell
# ...a row past the end of a section is appended to it...
ds row add shop 1 99 'iPad case'
# ...and a section past the end gets a new one-row section and a whole reload (the original's
# documentation says it notifies the section; its code reloads everything, and archsh follows it).
ds row add shop 9 0 'Gift wrap'
ds count shop
ds row update shop 0 0 'Gift card (digital)'
# A patch skips a row past the end of its section; a section that does not exist voids it all.
ds rows patch shop 0-1='iPhone 15 Pro Max (sold out)' 0-99=skipped
ds rows patch shop 0-1='iPhone 15 (voided)' 7-7=nowhere
expect contains "no change, no notification"
# An update out of bounds does nothing and notifies nothing; --quiet is notify: false.
ds row update shop 9 9 nowhere
ds row remove shop 0 0 --quiet
# Removing a section's last row removes the section, and reloads everything.
ds row remove shop 4 0
ds count shop

# A JSON row whose type is a cell data controller is used directly.
ds row add shop 3 0 '{"type": "DetailCell", "title": "AppleCare+", "detail": "2 years"}'
ds render shop --from 12 --count 4

## Section mutations
# Section mutations.
ds section add shop --header Accessories --footer 'Sold separately' --rows 'MagSafe Charger' 'AirTag'
ds section data shop 4 --header 'Accessories (in stock)'
ds section remove shop 2
ds state shop

## Other cells and layouts
# The example app's third cell: FullProductDetailsCell shows what the Translator makes of a product.
ds register shop Product FullProductDetailsCell
ds render shop --from 6 --count 2

# The collection style: cards in a grid, headers and footers as supplementary cells.
ds render shop --style collection --from 0 --count 5 --width 76

# A data source from a sections file: a model type of its own (Dish) needs a registration.
ds new menu --sections @menu.json
ds register menu Dish DetailCell
ds register menu Text BasicCell
ds render menu --width 44

# The empty state: with no rows, the delegate's background view is shown and separators are off;
# collectionState changes only on the way to empty and back (TableViewDataSource, seed 000).
ds background menu 'Nothing on the menu today'
ds section clear menu
ds render menu --width 44
ds state menu
ds section add menu --header Specials --rows 'Soup of the day'
ds render menu --width 44
ds list
