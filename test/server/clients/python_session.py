# The official Python client (Debian's python3-kubernetes) against `kubesim serve`: list, create,
# patch, watch (it sends watch=True) and a CRD with its custom objects. Prints one line per step;
# any failure raises (non-zero exit). Usage: python3 python_session.py KUBECONFIG
import sys
import time

from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()
ns = "py"

names = [n.metadata.name for n in core.list_namespace().items]
assert "default" in names, names
print("list namespaces:", ",".join(sorted(names)))

core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
cm = core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg"), data={"a": "1"}))
rv = cm.metadata.resource_version
core.patch_namespaced_config_map("cfg", ns, {"data": {"b": "2"}})
print("patched data:", sorted(core.read_namespaced_config_map("cfg", ns).data.items()))

events = []
w = watch.Watch()
for ev in w.stream(core.list_namespaced_config_map, ns, resource_version=rv, timeout_seconds=5):
    events.append("%s %s" % (ev["type"], ev["object"].metadata.name))
    if len(events) == 1:
        core.delete_namespaced_config_map("cfg", ns)
    if len(events) == 2:
        w.stop()
print("watch events:", events)
assert events == ["MODIFIED cfg", "DELETED cfg"], events

ext = client.ApiextensionsV1Api()
ext.create_custom_resource_definition({
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.example.org"},
    "spec": {
        "group": "example.org",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
        "scope": "Namespaced",
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"size": {"type": "integer", "default": 1}}}}}},
        }],
    },
})
for _ in range(50):
    crd = ext.read_custom_resource_definition("gadgets.example.org")
    conds = {c.type: c.status for c in (crd.status.conditions or [])}
    if conds.get("Established") == "True":
        break
    time.sleep(0.1)
print("crd conditions:", sorted(conds.items()))
assert conds.get("Established") == "True"

co = client.CustomObjectsApi()
co.create_namespaced_custom_object("example.org", "v1", ns, "gadgets", {
    "apiVersion": "example.org/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {}})
co.patch_namespaced_custom_object("example.org", "v1", ns, "gadgets", "g1", {"metadata": {"labels": {"x": "y"}}})
got = co.get_namespaced_custom_object("example.org", "v1", ns, "gadgets", "g1")
print("custom object:", got["spec"], got["metadata"]["labels"])
assert got["spec"] == {"size": 1} and got["metadata"]["labels"] == {"x": "y"}
items = co.list_namespaced_custom_object("example.org", "v1", ns, "gadgets")["items"]
assert [i["metadata"]["name"] for i in items] == ["g1"]
ext.delete_custom_resource_definition("gadgets.example.org")
print("ok")
