/**
 * The CustomResourceDefinition the server tests apply: widgets.example.com, kind Widget,
 * namespaced, one version v1 that is served and stored. `version` holds the rest of that version's
 * fields (schema, subresources, printer columns, …) as YAML lines indented by four spaces.
 */
export function widgetCrd(version: string, shortNames: string[] = []): string {
  const short = shortNames.length > 0 ? `, shortNames: [${shortNames.join(', ')}]` : '';
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget${short}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
${version}`;
}
