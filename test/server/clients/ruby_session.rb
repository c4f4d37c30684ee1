# Ruby's kubeclient (Debian's ruby-kubeclient) against `kubesim serve`: list, create, patch, watch
# (through the legacy /api/v1/watch/ paths it uses) and a CRD with its custom resources.
# Prints one line per step; any failure raises (non-zero exit). Usage: ruby ruby_session.rb URL
require 'kubeclient'

url = ARGV[0]
core = Kubeclient::Client.new("#{url}/api", 'v1')
ns = 'rb'

names = core.get_namespaces.map { |n| n.metadata.name }
raise "no default namespace: #{names}" unless names.include?('default')
puts "list namespaces: #{names.sort.join(',')}"

core.create_namespace(Kubeclient::Resource.new(metadata: { name: ns }))
cm = core.create_config_map(Kubeclient::Resource.new(metadata: { name: 'cfg', namespace: ns }, data: { a: '1' }))
core.patch_config_map('cfg', { data: { b: '2' } }, ns)
data = core.get_config_map('cfg', ns).data.to_h
puts "patched data: #{data.sort}"
raise "patch lost: #{data}" unless data == { a: '1', b: '2' }

events = []
watcher = core.watch_config_maps(namespace: ns, resource_version: cm.metadata.resourceVersion)
core.delete_config_map('cfg', ns)
watcher.each do |notice|
  events << "#{notice.type} #{notice.object.metadata.name}"
  break if events.size == 2
end
watcher.finish
puts "watch events: #{events}"
raise "watch: #{events}" unless events == ['MODIFIED cfg', 'DELETED cfg']

ext = Kubeclient::Client.new("#{url}/apis/apiextensions.k8s.io", 'v1')
ext.create_custom_resource_definition(Kubeclient::Resource.new(
  metadata: { name: 'gizmos.example.net' },
  spec: {
    group: 'example.net',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true,
                 schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }]
  }
))
established = false
50.times do
  crd = ext.get_custom_resource_definition('gizmos.example.net')
  established = (crd.status.conditions || []).any? { |c| c.type == 'Established' && c.status == 'True' }
  break if established
  sleep 0.1
end
raise 'CRD never Established' unless established
puts 'crd established'

gizmos = Kubeclient::Client.new("#{url}/apis/example.net", 'v1')
gizmos.create_gizmo(Kubeclient::Resource.new(metadata: { name: 'z1', namespace: ns }, spec: { teeth: 12 }))
gizmos.patch_gizmo('z1', { spec: { teeth: 13 } }, ns)
z = gizmos.get_gizmo('z1', ns)
puts "custom resource: #{z.spec.to_h}"
raise "gizmo: #{z.spec.to_h}" unless z.spec.teeth == 13
raise 'list' unless gizmos.get_gizmos(namespace: ns).map { |g| g.metadata.name } == ['z1']
ext.delete_custom_resource_definition('gizmos.example.net')
puts 'ok'
