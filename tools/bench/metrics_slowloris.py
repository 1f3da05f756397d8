#!/usr/bin/env python3
# The /metrics endpoint under a slowloris: brrr run --metrics-addr of `sleep 12`, 64 connections each
# sending a header line every 0.3 s (reconnecting when the server closes them), and 30 scrapes
# beside them; prints how many were answered and their median and longest latency.
# Usage: tools/bench/metrics_slowloris.py [build/default/lib/brrr]
# Must never: leave a process behind (it waits for brrr run).
import socket, subprocess, sys, threading, time, re
brrr = sys.argv[1] if len(sys.argv) > 1 else "build/default/lib/brrr"
p = subprocess.Popen([brrr, "run", "--quiet", "--output", "/tmp/brrr-slowloris.brrr", "--metrics-addr", "127.0.0.1:0", "--", "sleep", "12"], stderr=subprocess.PIPE, text=True)
port = None
t0 = time.time()
while port is None and time.time() - t0 < 10:
    line = p.stderr.readline()
    m = re.search(r"127\.0\.0\.1:(\d+)", line)
    if m: port = int(m.group(1))
print("port", port)
stop = False
socks = []
for i in range(64):
    s = socket.create_connection(("127.0.0.1", port)); socks.append(s)
def trickle():
    i = 0
    while not stop:
        for s in list(socks):
            try: s.send(b"GET /metrics HTTP/1.1\r\n" if i == 0 else b"X-Slow: 1\r\n")
            except OSError:
                socks.remove(s)
                try: socks.append(socket.create_connection(("127.0.0.1", port)))
                except OSError: pass
        i += 1; time.sleep(0.3)
th = threading.Thread(target=trickle); th.start()
lat = []
for i in range(30):
    t = time.time()
    c = socket.create_connection(("127.0.0.1", port), timeout=4)
    c.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    try:
        while True:
            d = c.recv(65536)
            if not d: break
            data += d
    except socket.timeout:
        pass
    lat.append((time.time() - t, data.startswith(b"HTTP/1.1 200")))
    time.sleep(0.2)
stop = True; th.join(); p.wait()
ok = sum(1 for l, g in lat if g)
ls = sorted(l for l, g in lat)
print(f"answered {ok}/30, median {ls[15]*1000:.1f} ms, max {ls[-1]*1000:.1f} ms")
