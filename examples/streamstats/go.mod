module example.com/streamstats

go 1.26

require github.com/godlpack/godlpack v0.0.0
