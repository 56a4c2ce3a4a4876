echo count $#
echo first $1
echo second "$2"
