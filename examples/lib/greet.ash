# Sourced by examples/basics.ash: $1 is the name to greet.
echo "Hello, $1! This line comes from $0 ($# argument)."
