#!/usr/bin/env python3
"""The container's health check speaks what its kbenchd serves (issue 28): the Dockerfile's
HEALTHCHECK against its own CMD, and every compose service of the kbench image against its
command, with the image's HEALTHCHECK unless the service gives its own. TLS (--tls-cert) needs a
check that verifies (--ca-file or --tls); plaintext (no --tls-cert) needs one that does not,
since a TLS handshake to a plaintext port fails. The check must dial the port kbenchd listens on.
Docker is not needed: the files are parsed.

usage: compose_healthcheck_test.py DEPLOY_DIR      Needs PyYAML (Debian: python3-yaml).
"""
import json
import pathlib
import re
import sys

import yaml

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def flag(args, name):
    """The value of --name=V or --name V in an argument list, '' for a bare flag, else None."""
    for i, a in enumerate(args):
        if a == name:
            nxt = args[i + 1] if i + 1 < len(args) else ""
            return "" if nxt.startswith("--") else nxt
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def dockerfile_instructions(text):
    """{'HEALTHCHECK': '...', 'CMD': '...'}: the last of each, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", text)
    out = {}
    for line in joined.splitlines():
        m = re.match(r"^(HEALTHCHECK|CMD|ENTRYPOINT)\s+(.*)$", line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def agree(where, daemon_args, health):
    """Checks one kbenchd command line against one health check command (exec form)."""
    check(health[-1:] == ["health"] and "kbctl" in health[0],
          f"{where}: the health check is not `kbctl ... health`: {health}")
    listen = flag(daemon_args, "--listen")
    server = flag(health, "--server")
    check(listen is not None and server is not None
          and listen.rsplit(":", 1)[-1] == server.rsplit(":", 1)[-1],
          f"{where}: the health check dials {server}, kbenchd listens on {listen}")
    serves_tls = flag(daemon_args, "--tls-cert") is not None
    dials_tls = flag(health, "--ca-file") is not None or flag(health, "--tls") is not None
    if serves_tls:
        check(dials_tls, f"{where}: kbenchd serves TLS, the health check dials plaintext")
    else:
        check(not dials_tls,
              f"{where}: kbenchd serves plaintext, the health check dials TLS ({health})")
        check(flag(daemon_args, "--insecure") is not None or
              re.match(r"^(127\.|localhost|\[::1\])", listen or "") is not None,
              f"{where}: plaintext on {listen} without --insecure: kbenchd would refuse to start")


def main():
    deploy = pathlib.Path(sys.argv[1])
    docker = dockerfile_instructions((deploy / "docker" / "Dockerfile").read_text())
    m = re.match(r"^(?:--\S+\s+)*CMD\s+(\[.*\])$", docker.get("HEALTHCHECK", ""))
    check(m is not None, "Dockerfile: no HEALTHCHECK ... CMD [exec form]")
    if not m:
        return
    image_health = json.loads(m.group(1))
    image_cmd = json.loads(docker["CMD"])
    agree("Dockerfile", image_cmd, image_health)

    compose = yaml.safe_load((deploy / "compose" / "docker-compose.yml").read_text())
    nodes = 0
    for name, service in compose["services"].items():
        if not str(service.get("image", "")).startswith("kbench:"):
            continue
        nodes += 1
        args = service.get("command", image_cmd)
        test = service.get("healthcheck", {}).get("test")
        if test is None:
            health = image_health
        else:
            check(test[0] == "CMD", f"compose {name}: healthcheck.test is not [\"CMD\", ...]")
            health = test[1:]
        check(not service.get("healthcheck", {}).get("disable"),
              f"compose {name}: the health check is disabled")
        agree(f"compose {name}", args, health)
    check(nodes > 0, "compose: no service runs the kbench image")


if __name__ == "__main__":
    main()
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
