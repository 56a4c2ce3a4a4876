# No error cells on the menu
#: seed 002
#: level 2
#: goal Make every row of menu draw a real cell instead of the error cell: the text row as a BasicCell, and both dishes (the Dish and the SpecialDish, a kind of dish in the app) as DetailCells.
#: hint 'ds render menu' shows which rows draw the error cell; 'ds model menu S R' shows a row's model type and cell; 'help ds register' says how a model type is matched.
#: hint A registration matches one model type exactly: Dish does not cover SpecialDish, and nothing covers text until Text is registered.
#: hint ds register menu Text BasicCell, then ds register menu SpecialDish DetailCell.
#: why register(dataController:for:) matches with type(of: model) == the registered type, so a subclass, a protocol or Any never matches, and an unmatched model draws "Error: missing model or data controller at [s, r]". A model that is itself a cell data controller (the BasicCell row here) needs no registration at all.

## setup
ds new menu --rows 'Espresso' '{"type":"Dish","name":"Soup","detail":"$4.00"}' '{"type":"SpecialDish","name":"Risotto","detail":"$12.00"}' '{"type":"BasicCell","title":"Ask about the cake of the day"}'
ds register menu Dish DetailCell

## check
ds model menu 0 0
expect contains "basicCell"
ds model menu 0 2
expect contains "detailCell"

## solution
ds register menu Text BasicCell
ds register menu SpecialDish DetailCell

## wrong
ds register menu Text BasicCell
