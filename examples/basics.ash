# A walkthrough of archsh itself: variables, help, expectations, scripts, errors and tracing.
# Run it with `archsh --echo -f examples/basics.ash`; the test suite checks its output.

## Variables and expectations
# Variables hold text. `$NAME` and `${NAME}` interpolate them, in bare words and "double quotes";
# 'single quotes' keep a dollar sign as it is.
set product 42
set family "Apple Watch"
echo "product $product is an ${family}" 'costs $399'
vars

# `expect` turns a script into a verified walkthrough: it checks the previous command.
echo "product $product"
expect equals "product 42"
expect contains 42

# `$?` is the status of the last command: 0 for success, 1 for failure.
echo last status $?

## Help and errors
# Help is generated from each command's declaration: usage, arguments, options, examples.
help output

# Mistakes get one-line errors that say where, what, and what to do. In a script the first error
# stops the run, unless the next command is an `expect` that examines it.
ehco hi
expect fails "did you mean 'echo'?"
set 2fast furious
expect fails "bad variable name"
echo $undefined_thing
expect fails "undefined variable 'undefined_thing'"
output yaml
expect fails "not a valid MODE"

## Scripts and output
# A long command can continue on the next line with a trailing backslash.
echo one \
  two \
  three

# `source` runs another script here; its path is relative to this file, and it gets arguments.
source lib/greet.ash Ada
expect contains "Hello, Ada"

# Results can be JSON, one document per command, for programs.
output json
vars
output table

## Factories and tracing
# The application factory is the composition root (BDModules): it creates the other factories,
# and they build every controller. Singletons are built once and shared; prototypes are built per
# request. The graph shows who builds what, and what is injected into what: here the part around
# the product updater ('factory graph' alone draws every product).
factory graph productUpdater
factory get productTranslator
factory get productTranslator
expect contains "#2"
factory get workspace
factory get workspace
expect contains "the shared instance"

# With tracing on, a command that makes a controller work is followed by the tree of what moved.
trace on
factory get tracer
trace export --format mermaid
trace off
