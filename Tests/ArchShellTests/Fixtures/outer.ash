echo outer starts
source lib/inner.ash hello
echo outer ends
