# The empty state's button replaces every section
#: seed 000/001
#: level 2
#: goal shop has one section, Favourites, with no rows, so its empty state shows a Load products button. Load the products with that button, and end with Favourites, still empty, as the first section, followed by the product families.
#: hint 'ds state shop' says why the empty state shows although there is a section; 'help ds empty-state' says what the products action does.
#: hint The products action is update(allSections:): it replaces every section, Favourites included. Put Favourites back after the tap.
#: hint 'ds tap shop', then 'ds section add shop --at 0 --header Favourites'.
#: why collectionState follows the rows, not the sections: a data source whose sections are all empty is .empty, so EmptyStateViewController's button shows. Its handler here loads the products with update(allSections:), which replaces every section instead of adding to them, so the empty Favourites section is gone after the tap (and the delegate hears only the empty to nonEmpty transition).

## setup
ds new shop
ds section add shop --header Favourites
ds empty-state shop 'No products yet' --button 'Load products' --action products

## check
ds count shop
expect contains "rows_per_section: 0, 5, 4, 3, 3"

## solution
ds tap shop
ds section add shop --at 0 --header Favourites

## wrong
ds tap shop
