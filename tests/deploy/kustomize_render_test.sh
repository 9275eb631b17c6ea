#!/usr/bin/env bash
# Renders every kustomization under deploy/k8s with a real kustomize (`kubectl kustomize`, or
# kustomize's own binary) and checks what comes out: it parses, holds the kinds that overlay
# must hold, needs no Prometheus Operator CRD unless it is ../monitoring, and puts every
# namespaced object in `kbench`. A cycle between overlay and base (issue 28) fails the render.
# usage: kustomize_render_test.sh K8S_DIR PYTHON3 [RENDERER]   exit 77: no renderer (skipped)
set -euo pipefail
k8s="$1" python="$2" renderer="${3:-}"
if [[ -z "$renderer" ]]; then
  renderer="$(command -v kubectl || command -v kustomize || true)"
fi
if [[ -z "$renderer" || ! -x "$renderer" ]]; then
  echo "SKIP: neither kubectl nor kustomize found (Debian: apt-get install kubernetes-client)"
  exit 77
fi
render() {
  case "$(basename "$renderer")" in
    kustomize) timeout 60 "$renderer" build "$1" ;;
    *) timeout 60 "$renderer" kustomize "$1" ;;
  esac
}
# The kinds each overlay must render; a kustomization missing from this list fails the test,
# so a new overlay is checked too.
declare -A expected=(
  [base]="Namespace DaemonSet Service"
  [fleet]="Namespace DaemonSet Service NetworkPolicy"
  [monitoring]="ServiceMonitor PrometheusRule"
  [postgres]="Service StatefulSet"
)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0 count=0
while IFS= read -r file; do
  dir="$(dirname "$file")"
  name="${dir#"$k8s"/}"
  [[ "$dir" == "$k8s" ]] && name="."
  count=$((count + 1))
  if [[ -z "${expected[$name]+x}" ]]; then
    echo "FAIL: $name: a kustomization this test does not know (add its kinds above)"
    failed=1; continue
  fi
  if ! render "$dir" >"$work/out.yaml" 2>"$work/err"; then
    echo "FAIL: $name does not render:"; cat "$work/err"; failed=1; continue
  fi
  "$python" - "$work/out.yaml" "$name" ${expected[$name]} <<'PY' || failed=1
import sys, yaml
path, name, want = sys.argv[1], sys.argv[2], sys.argv[3:]
docs = [d for d in yaml.safe_load_all(open(path)) if d]
kinds = [d["kind"] for d in docs]
errors = [f"{name}: no {k} rendered (got {kinds})" for k in want if k not in kinds]
# The Operator's CRDs are optional: only the monitoring overlay may use monitoring.coreos.com.
if name != "monitoring":
    errors += [f"{name}: {d['kind']} needs the Prometheus Operator's CRDs" for d in docs
               if d["apiVersion"].startswith("monitoring.coreos.com/")]
errors += [f"{name}: {d['kind']}/{d['metadata']['name']} is not in namespace kbench" for d in docs
           if d["kind"] != "Namespace" and d["metadata"].get("namespace") != "kbench"]
for e in errors:
    print("FAIL:", e)
print(f"{name}: rendered {len(docs)} objects: {' '.join(sorted(kinds))}")
sys.exit(1 if errors else 0)
PY
done < <(find "$k8s" -name kustomization.yaml | sort)
((count > 0)) || { echo "FAIL: no kustomization.yaml under $k8s"; exit 1; }
((failed == 0)) || exit 1
echo "all $count kustomizations rendered with $renderer"
