/**
 * `kubesim version [-o table|wide|json|yaml]`: kubesim's own version and the one Kubernetes release
 * it models (src/api/kinds.ts KUBERNETES_VERSION), the same version `kubesim serve` answers on
 * `/version` and its kubelets put in each node's status.nodeInfo.kubeletVersion.
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KUBERNETES_VERSION } from '../api/kinds.js';
import { packageRoot } from '../util/paths.js';
import { type OutputFlags, addOutputOptions, emit, isStructured, structured } from './output.js';

export function register(program: Command): void {
  const cmd = program
    .command('version')
    .description("print kubesim's version and the Kubernetes release it models (v1.34)");
  addOutputOptions(cmd)
    .addHelpText(
      'after',
      `
Every component kubesim models (apiserver, scheduler, controllers, kubelet, kube-proxy) follows this
one release, defaults included (docs/defaults.md).

Examples:
  kubesim version
  kubesim version -o json`,
    )
    .action((o: OutputFlags) => {
      const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
        version: string;
      };
      const info = { kubesimVersion: pkg.version, kubernetesVersion: { ...KUBERNETES_VERSION } };
      if (isStructured(o.output)) return emit(o, structured(o.output, info));
      emit(o, `kubesim: ${pkg.version}\nKubernetes: ${KUBERNETES_VERSION.gitVersion}\n`);
    });
}
