// The iptables mode against the shared Proxier conformance suite; the real tool is
// iptables-restore --test (ip6tables-restore for IPv6) in a network namespace of its own.
import { IptablesProxier } from '../../../src/proxy/renderers/iptables/proxier.js';
import { runProxierConformance } from '../conformance.js';
import { inFreshNetns, probe } from '../netns.js';

runProxierConformance({
  mode: 'iptables',
  newProxier: (state, opts) => new IptablesProxier(state, opts),
  realTool: {
    unavailable() {
      const r = inFreshNetns((ns) => probe(ns, 'iptables-restore', ['--test'], '*nat\nCOMMIT\n'));
      return 'skip' in r ? r.skip : r.value;
    },
    check(result, family) {
      const tool = family === 'IPv6' ? 'ip6tables-restore' : 'iptables-restore';
      const r = inFreshNetns((ns) => ns.run(tool, ['--test'], result.text));
      if ('skip' in r) return r.skip;
      return r.value.status === 0 ? r.value.stderr : r.value.stderr || `exit ${r.value.status}`;
    },
  },
});
