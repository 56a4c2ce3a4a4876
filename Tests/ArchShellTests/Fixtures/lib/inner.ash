# sourced by outer.ash
echo inner runs with $1
echo --loud oops
echo after the error
