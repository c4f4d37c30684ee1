// The ipvs mode against the shared Proxier conformance suite. The real tools are `ipset restore`
// and then iptables-restore --test on the rules that match those sets, in a network namespace of
// their own (`ipvsadm -R` needs the ip_vs kernel module; proxier.test.ts runs it where it exists).
import { IpvsProxier } from '../../../src/proxy/renderers/ipvs/proxier.js';
import { runProxierConformance } from '../conformance.js';
import { inFreshNetns, probe } from '../netns.js';

const NO_PARTIAL =
  'ipvs mode has no partial sync: every sync recomputes the whole IPVS state and applies the difference through netlink';

runProxierConformance({
  mode: 'ipvs',
  newProxier: (state, opts) => new IpvsProxier(state, opts),
  skip: [
    {
      reason: NO_PARTIAL,
      tests: [
        'a topology change makes the next sync full',
        'a sync without changes writes less than a full sync',
      ],
    },
    {
      reason:
        'ipvs sends external traffic of a Local policy to cluster endpoints when the node has none (kubernetes#97081)',
      tests: ['external traffic to a Local-policy LoadBalancer IP without local endpoints is dropped'],
    },
  ],
  realTool: {
    unavailable() {
      const r = inFreshNetns((ns) => probe(ns, 'ipset', ['list']));
      return 'skip' in r ? r.skip : r.value;
    },
    check(result, family) {
      const artifact = (name: string) => result.artifacts.find((a) => a.name === name)?.text ?? '';
      const r = inFreshNetns((ns) => {
        const sets = ns.run('ipset', ['restore'], artifact('ipset.restore'));
        if (sets.status !== 0) return `ipset restore: ${sets.stderr}`;
        const tool = family === 'IPv6' ? 'ip6tables-restore' : 'iptables-restore';
        const rules = ns.run(
          tool,
          ['--test'],
          artifact(family === 'IPv6' ? 'ip6tables.restore' : 'iptables.restore'),
        );
        // a kernel without ip_vs does not know the -m ipvs match of KUBE-IPVS-OUT-FILTER
        const complaints = rules.stderr
          .split('\n')
          .filter((l) => l && !/^Warning: Extension ipvs revision 0 not supported/.test(l));
        return rules.status === 0
          ? complaints.join('\n')
          : `${tool}: ${rules.stderr || `exit ${rules.status}`}`;
      });
      return 'skip' in r ? r.skip : r.value;
    },
  },
});
