"""The differ: load the result files, check them against the model, diff
the flavors pair by pair with the causes of every difference, and compare
with results/expected (regress)."""
