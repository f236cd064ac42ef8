// cryptobench's Go peer: the standard library only, no dependency, so it
// builds offline (tools/run-peers sets GOFLAGS=-mod=mod GOPROXY=off).
module cryptobench/peers/go

go 1.19
