#!/usr/bin/env python3
"""Consistency checks of deploy/: the Kubernetes manifests, the Dockerfile and the systemd unit
agree with each other, with the alert rules and (given kbenchd) with the daemon's flags.

usage: manifests_test.py DEPLOY_DIR [KBENCHD]
Needs PyYAML (Debian: python3-yaml).
"""
import pathlib
import re
import shlex
import subprocess
import sys

import yaml

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def port_of(address):
    return int(address.rsplit(":", 1)[1])


def flags_of(args):
    """{'--listen': '0.0.0.0:50051', ...} from ['--listen=...'] or ['--listen', '...']."""
    out = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--"):
            if "=" in a:
                k, v = a.split("=", 1)
                out[k] = v
            elif i + 1 < len(args) and not args[i + 1].startswith("--"):
                out[a] = args[i + 1]
                i += 1
            else:
                out[a] = ""
        i += 1
    return out


def mentions(data, word):
    """Whether `word` is a key or within a value anywhere in parsed YAML (comments are gone)."""
    if isinstance(data, dict):
        return any(mentions(k, word) or mentions(v, word) for k, v in data.items())
    if isinstance(data, list):
        return any(mentions(v, word) for v in data)
    return isinstance(data, str) and word in data


def main():
    deploy = pathlib.Path(sys.argv[1])
    kbenchd = sys.argv[2] if len(sys.argv) > 2 else None
    used_flags = {}  # flag -> where

    # --- Kubernetes ---
    k8s = deploy / "k8s"
    docs = []
    # base (what every cluster applies) and monitoring (the Prometheus Operator's, optional).
    for part in ("base", "monitoring"):
        kustomization = yaml.safe_load((k8s / part / "kustomization.yaml").read_text())
        for name in kustomization["resources"]:
            path = k8s / part / name
            check(path.exists(), f"k8s/{part} lists {name}, which does not exist")
            if path.exists():
                docs += [d for d in yaml.safe_load_all(path.read_text()) if d]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    for kind in ("Namespace", "DaemonSet", "Service", "ServiceMonitor", "PrometheusRule"):
        check(len(by_kind.get(kind, [])) == 1, f"k8s: expected one {kind}")

    ds = by_kind["DaemonSet"][0]
    pod = ds["spec"]["template"]
    spec = pod["spec"]
    check(ds["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items(),
          "DaemonSet selector does not match its pod labels")
    check("nvidia.com/gpu.present" in spec.get("nodeSelector", {}) or "affinity" in spec,
          "DaemonSet is not restricted to GPU nodes")
    check(any(t.get("key") == "nvidia.com/gpu" for t in spec.get("tolerations", [])),
          "DaemonSet does not tolerate the nvidia.com/gpu taint")
    [kb] = [c for c in spec["containers"] if c["name"] == "kbenchd"]
    check(int(kb["resources"]["limits"].get("nvidia.com/gpu", 0)) >= 1,
          "kbenchd container requests no nvidia.com/gpu")
    args = flags_of(kb["args"])
    for f in args:
        used_flags[f] = "k8s/base/daemonset.yaml"
    ports = {p["name"]: p["containerPort"] for p in kb["ports"]}
    check(port_of(args["--listen"]) == ports.get("grpc"), "--listen port != grpc containerPort")
    check(port_of(args["--metrics-listen"]) == ports.get("metrics"),
          "--metrics-listen port != metrics containerPort")
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        # Kubernetes' grpc probe has no TLS: over TLS, an exec of `kbctl ... health` on the port.
        command = kb.get(probe, {}).get("exec", {}).get("command", [])
        exec_health = (command[-1:] == ["health"] and "--server" in command and
                       port_of(command[command.index("--server") + 1]) == ports.get("grpc"))
        check(kb.get(probe, {}).get("grpc", {}).get("port") == ports.get("grpc") or exec_health,
              f"{probe} is not a gRPC health check on the grpc port")
    mounts = {m["mountPath"]: m["name"] for m in kb["volumeMounts"]}
    data_volume = mounts.get(args["--data-dir"])
    check(data_volume is not None, "--data-dir is not a mounted volume")
    volumes = {v["name"]: v for v in spec["volumes"]}
    persistent = volumes.get(data_volume, {})
    check("hostPath" in persistent or "persistentVolumeClaim" in persistent,
          "the data directory is not persistent (hostPath or PVC)")
    check(kb["securityContext"].get("readOnlyRootFilesystem") is True,
          "kbenchd's root filesystem is writable")

    svc = by_kind["Service"][0]
    check(svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items(),
          "Service selector does not match the DaemonSet's pods")
    svc_ports = {p["name"]: p for p in svc["spec"]["ports"]}
    check(svc_ports.get("metrics", {}).get("targetPort") == "metrics",
          "Service has no port `metrics` targeting the container's metrics port")
    sm = by_kind["ServiceMonitor"][0]
    check(sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items(),
          "ServiceMonitor does not select the Service")
    check(all(e["port"] in svc_ports for e in sm["spec"]["endpoints"]),
          "ServiceMonitor scrapes a port the Service does not have")

    alerts = yaml.safe_load((deploy / "prometheus" / "alerts.yml").read_text())
    rule = by_kind["PrometheusRule"][0]
    check(rule["spec"]["groups"] == alerts["groups"],
          "k8s/monitoring/prometheusrule.yaml differs from prometheus/alerts.yml")
    # The Operator names the scrape job after the Service; the alerts select job="kbench".
    jobs = set(re.findall(r'job="([^"]+)"', (deploy / "prometheus" / "alerts.yml").read_text()))
    check(jobs <= {svc["metadata"]["name"]},
          f"alerts select job {jobs}, but the Service (the Operator's job label) is "
          f"{svc['metadata']['name']}")

    # --- Prometheus config: the job name the alerts expect, the port the daemon serves ---
    prom = yaml.safe_load((deploy / "prometheus" / "prometheus.yml").read_text())
    check(jobs <= {c["job_name"] for c in prom["scrape_configs"]},
          "prometheus.yml has no scrape job named as the alerts expect")
    targets = yaml.safe_load((deploy / "prometheus" / "targets" / "kbench.yml").read_text())
    for group in targets:
        for t in group["targets"]:
            check(port_of(t) == ports["metrics"], f"scrape target {t} is not on the metrics port")

    # --- Dockerfile ---
    dockerfile = (deploy / "docker" / "Dockerfile").read_text()
    base = re.search(r"^ARG CUDA_IMAGE=(\S+)", dockerfile, re.M)
    check(base is not None and re.fullmatch(r"nvidia/cuda:13\.0\.\d+-runtime-\S+", base.group(1)),
          "Dockerfile's base is not an nvidia/cuda 13.0 runtime image")
    entrypoint = re.search(r"^ENTRYPOINT (\[.*\])$", dockerfile, re.M)
    entry = yaml.safe_load(entrypoint.group(1)) if entrypoint else []
    # kbenchd must not be PID 1: an init reaps orphaned children (ncu) and forwards signals.
    check(len(entry) >= 3 and entry[0].endswith("tini") and entry[-1].endswith("/kbenchd"),
          "Dockerfile's ENTRYPOINT does not start kbenchd under tini")
    cmd = re.search(r"^CMD (\[.*\])$", dockerfile, re.M)
    check(cmd is not None, "Dockerfile has no exec-form CMD")
    if cmd:
        docker_args = flags_of(yaml.safe_load(cmd.group(1)))
        for f in docker_args:
            used_flags[f] = "docker/Dockerfile"
        exposed = {int(p) for p in re.search(r"^EXPOSE (.*)$", dockerfile, re.M).group(1).split()}
        check({port_of(docker_args["--listen"]), port_of(docker_args["--metrics-listen"])}
              <= exposed, "Dockerfile does not EXPOSE the ports kbenchd listens on")

    # --- systemd ---
    unit = (deploy / "systemd" / "kbenchd.service").read_text()
    exec_start = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1)
    for f in flags_of(shlex.split(exec_start)[1:]):
        used_flags[f] = "systemd/kbenchd.service"
    metrics_env = re.search(r"^Environment=KBENCH_METRICS_LISTEN=(\S+)", unit, re.M)
    check(metrics_env and port_of(metrics_env.group(1)) == ports["metrics"],
          "the systemd unit's metrics port differs from the other deployments'")

    # --- a fleet (issue 14): the k8s overlay, the PostgreSQL StatefulSet, compose, systemd ---
    fleet = k8s / "fleet"
    overlay = yaml.safe_load((fleet / "kustomization.yaml").read_text())
    check("../base" in overlay.get("bases", []), "k8s/fleet does not build on deploy/k8s/base")
    [patch_ref] = overlay["patchesJson6902"]
    patch = yaml.safe_load((fleet / patch_ref["path"]).read_text())
    patch_args = [op["value"] for op in patch if op["path"].endswith("/args/-")]
    for f in flags_of(patch_args):
        used_flags[f] = "k8s/fleet"
    env = {e["name"]: e for op in patch if op["path"].endswith("/env") for e in op["value"]}
    check(env.get("KBENCH_NODE", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
          == "spec.nodeName", "k8s/fleet: --node does not come from spec.nodeName")
    check("secretKeyRef" in env.get("KBENCH_STORE", {}).get("valueFrom", {}),
          "k8s/fleet: KBENCH_STORE does not come from a Secret")
    # Issue 24: the password as a file from the Secret, never an environment children inherit.
    check("PGPASSWORD" not in env, "k8s/fleet: the password is in the environment (PGPASSWORD)")
    password_file = flags_of(patch_args).get("--store-password-file", "")
    mounts = [op["value"] for op in patch if op["path"].endswith("/volumeMounts/-")]
    volumes = {op["value"]["name"]: op["value"] for op in patch
               if op["path"].endswith("/volumes/-")}
    [store_mount] = [m for m in mounts if password_file.startswith(m["mountPath"] + "/")] or [{}]
    store_secret = volumes.get(store_mount.get("name"), {}).get("secret", {})
    check(store_secret.get("secretName") == "kbench-store"
          and store_secret.get("defaultMode", 0o777) & 0o077 == 0,
          "k8s/fleet: --store-password-file is not the kbench-store Secret, mode 0400")
    check(all(f"$({v})" in " ".join(patch_args) for v in ("KBENCH_STORE", "KBENCH_NODE")),
          "k8s/fleet: --store and --node do not use their env variables")
    check("networkpolicy.yaml" in overlay["resources"], "k8s/fleet: no NetworkPolicy")
    policies = {d["metadata"]["name"]: d for d in
                yaml.safe_load_all((fleet / "networkpolicy.yaml").read_text()) if d}
    pg_policy = policies.get("kbench-postgres", {}).get("spec", {})
    pg_from = [p for rule in pg_policy.get("ingress", []) for p in rule.get("from", [])]
    check(pg_policy.get("podSelector", {}).get("matchLabels", {}).get(
              "app.kubernetes.io/component") == "postgres"
          and pg_from and all(p.get("podSelector", {}).get("matchLabels", {}).get(
              "app.kubernetes.io/component") == "kbenchd" for p in pg_from),
          "k8s/fleet: PostgreSQL is reachable from pods other than kbenchd")
    pg_docs = [d for d in yaml.safe_load_all((k8s / "postgres" / "postgres.yaml").read_text()) if d]
    [statefulset] = [d for d in pg_docs if d["kind"] == "StatefulSet"]
    [pg_service] = [d for d in pg_docs if d["kind"] == "Service"]
    check(pg_service["spec"]["selector"].items()
          <= statefulset["spec"]["template"]["metadata"]["labels"].items(),
          "k8s/postgres: the Service does not select the StatefulSet's pod")
    check(statefulset["spec"].get("volumeClaimTemplates"), "k8s/postgres: no persistent volume")
    compose = yaml.safe_load((deploy / "compose" / "docker-compose.yml").read_text())
    nodes = [s for n, s in compose["services"].items() if n.startswith("node-")]
    check(len(nodes) >= 2, "compose: fewer than two kbenchd nodes")
    names = set()
    for service in nodes:
        node_args = flags_of(service["command"])
        for f in node_args:
            used_flags[f] = "compose/docker-compose.yml"
        check(node_args.get("--store", "").startswith("postgres://"),
          "compose: a node has no --store")
        names.add(node_args.get("--node"))
        check(all(p.startswith("127.0.0.1:") for p in service.get("ports", [])),
              "compose: an --insecure node publishes its port beyond the loopback")
    check(len(names) == len(nodes), "compose: two nodes share a --node name")
    # Issue 24: the database password reaches each node as a libpq password file on a read-only
    # volume, never through the environment.
    for service in nodes:
        password_file = flags_of(service["command"]).get("--store-password-file", "")
        mounted = [v for v in service.get("volumes", [])
                   if password_file.startswith(v.split(":")[1] + "/")]
        check(len(mounted) == 1 and mounted[0].endswith(":ro"),
              "compose: a node has no --store-password-file on a read-only volume")
        check(not any("PASSWORD" in name for name in (service.get("environment") or {})),
              "compose: a node has a password in its environment")
    # Nowhere, in any service or manifest: PGPASSWORD is inherited by every child process.
    check(not mentions(compose, "PGPASSWORD"), "compose: PGPASSWORD is set")
    for path in sorted(k8s.rglob("*.yaml")):
        check(not any(mentions(d, "PGPASSWORD") for d in yaml.safe_load_all(path.read_text())),
              f"k8s: {path.relative_to(k8s)} sets PGPASSWORD")
    dropin = (deploy / "systemd" / "fleet.conf").read_text()
    extra = re.search(r'KBENCH_EXTRA_ARGS=([^"]*)"', dropin)
    check(extra is not None, "systemd/fleet.conf sets no KBENCH_EXTRA_ARGS")
    if extra:
        for f in flags_of(shlex.split(extra.group(1))):
            used_flags[f] = "systemd/fleet.conf"

    # --- the daemon knows every flag the deployments pass ---
    if kbenchd:
        result = subprocess.run([kbenchd, "--help"], capture_output=True, text=True, timeout=30)
        help_text = result.stdout + result.stderr
        check(result.returncode == 0, f"kbenchd --help exited {result.returncode}")
        for flag, where in sorted(used_flags.items()):
            check(re.search(re.escape(flag) + r"\b", help_text) is not None,
                  f"{where} passes {flag}, which kbenchd --help does not list")

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s); flags checked: {sorted(used_flags)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
