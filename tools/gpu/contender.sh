# Sourced by the GPU proof scripts: a second process on the GPU for the contention and clean-stamp
# proofs. start_contender SECONDS LOG runs 8192^2 f32 matmuls in PyTorch for SECONDS, returns once
# its context is up (bounded, 60 s) and sets contender_pid; `wait $contender_pid` ends it.
start_contender() {
  python3 -c '
import sys, time, torch
a = torch.randn(8192, 8192, device="cuda")
a @ a
torch.cuda.synchronize()
print("ready", flush=True)
t = time.time()
while time.time() - t < float(sys.argv[1]):
    a @ a
torch.cuda.synchronize()' "$1" >"$2" 2>&1 &
  contender_pid=$!
  for _ in $(seq 1 600); do grep -q ready "$2" && break; sleep 0.1; done
}
