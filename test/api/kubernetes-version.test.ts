// One Kubernetes release across the product (issue 29, class 7): `kubesim version`, the server's
// `/version` document and the defaults kubesim models all follow v1.34. The node monitor grace
// period is the kube-controller-manager default of that release, 50 s (40 s before v1.32): a pod
// that tolerates the unreachable taint for 0 s is still running 45 s into a zone outage.
import { describe, expect, it } from 'vitest';
import { KUBERNETES_VERSION } from '../../src/api/kinds.js';
import { applyWhatIfs, parseWhatIf } from '../../src/capacity/whatif.js';
import { versionInfo } from '../../src/server/discovery.js';
import { kubesim } from '../cli/harness.js';
import { makeNode, makePod } from '../helpers/builders.js';

describe('one Kubernetes version', () => {
  it('kubesim version, --version and /version report v1.34', () => {
    const r = kubesim(['version', '-o', 'json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).kubernetesVersion).toEqual({
      major: '1',
      minor: '34',
      gitVersion: 'v1.34.0',
    });
    expect(kubesim(['version']).stdout).toContain('Kubernetes: v1.34.0');
    expect(kubesim(['--version']).stdout).toContain('Kubernetes v1.34.0');
    const v = versionInfo('0.0.0');
    expect([v.major, v.minor]).toEqual(['1', '34']);
    expect(v.gitVersion).toBe('v1.34.0+kubesim-0.0.0');
    expect(KUBERNETES_VERSION.gitVersion).toBe('v1.34.0');
  });

  it('--node-monitor-grace-period is 50 s: no eviction 45 s into an outage, one at 50 s', () => {
    const node = makeNode('a1')
      .label('topology.kubernetes.io/zone', 'zone-a')
      .capacity({ cpu: '4', memory: '8Gi', pods: '110' })
      .obj();
    const pod = makePod('p')
      .node('a1')
      .toleration({
        key: 'node.kubernetes.io/unreachable',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 0,
      })
      .obj();
    const at = (after: string) =>
      applyWhatIfs({ nodes: [node], pods: [pod] }, [parseWhatIf(`zone-outage=zone-a@${after}`)]).applied[0];
    expect(at('45s')).toContain('0 pod(s) evicted');
    expect(at('50s')).toContain('1 pod(s) evicted');
  });
});
