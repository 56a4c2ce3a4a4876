# Parser (Lickability, seed 000): raw input in, models out, and nothing else.
# Run it with `archsh --echo -f examples/parsing.ash`, from any directory: in a script, a relative
# path starts in the script's folder. The suite checks its output.

## AcknowParser
# AcknowParser reads the acknowledgements plist CocoaPods generates: the first group's footer is
# the header, the last group's is the footer, and the groups between are the libraries.
parse acknowledgements Pods-acknowledgements.plist
expect contains "libraries: 6"

## An unreadable plist
# The seed turns an unreadable plist into an empty list; archsh says what is wrong instead.
parse acknowledgements Missing-acknowledgements.plist
expect fails "no such file"
parse acknowledgements parsing.ash
expect fails "is not a property list"

## GameParser
# GameParser, the guide's newer example, throws invalidInput when the JSON has no name.
parse game '{"name": "Tetris", "year": 1984}'
expect equals "name: Tetris"
parse game '{"title": "Tetris"}'
expect fails invalidInput
