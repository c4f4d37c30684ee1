/**
 * The self-review APIs, answered as kube-apiserver answers them with the AlwaysAllow authorizer
 * for the one user kubesim serve has, the admin its kubeconfig names: every request is allowed.
 *
 *  - `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` → the spec sent back with
 *    `status.allowed: true` (`kubectl auth can-i VERB RESOURCE` prints "yes");
 *  - `POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews` → every verb on every resource
 *    and non-resource URL (`kubectl auth can-i --list`);
 *  - `POST /apis/authentication.k8s.io/v1/selfsubjectreviews` (and v1beta1) → the user
 *    (`kubectl auth whoami`).
 *
 * Bodies come as JSON or protobuf (body.ts). (upstream: pkg/registry/authorization/
 * selfsubjectaccessreview/rest.go, selfsubjectrulesreview/rest.go, pkg/registry/authentication/
 * selfsubjectreview/rest.go; the AlwaysAllow authorizer in staging/src/k8s.io/apiserver/pkg/
 * authorization/authorizerfactory/builtin.go)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeBody } from './body.js';
import { sendJson } from './respond.js';

/** who every request is: the cluster admin (kubeadm's admin.conf user is in system:masters too) */
export const ADMIN_USER = { username: 'kubesim-admin', groups: ['system:masters', 'system:authenticated'] };

const AUTHZ = /^\/apis\/authorization\.k8s\.io\/v1\/(selfsubjectaccessreviews|selfsubjectrulesreviews)\/?$/;
const AUTHN = /^\/apis\/authentication\.k8s\.io\/(v1|v1beta1)\/selfsubjectreviews\/?$/;

export async function authRoute(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  raw: () => Promise<Buffer>,
): Promise<boolean> {
  if (req.method !== 'POST') return false;
  const head = { metadata: { creationTimestamp: null } };
  const authn = AUTHN.exec(url.pathname);
  if (authn) {
    await raw();
    sendJson(res, 201, {
      kind: 'SelfSubjectReview',
      apiVersion: `authentication.k8s.io/${authn[1]}`,
      ...head,
      status: { userInfo: ADMIN_USER },
    });
    return true;
  }
  const authz = AUTHZ.exec(url.pathname);
  if (!authz) return false;
  const apiVersion = 'authorization.k8s.io/v1';
  if (authz[1] === 'selfsubjectaccessreviews') {
    const body = await decodeBody(req.headers['content-type'], raw);
    sendJson(res, 201, {
      kind: 'SelfSubjectAccessReview',
      apiVersion,
      ...head,
      spec: body?.spec ?? {},
      status: { allowed: true },
    });
    return true;
  }
  await raw();
  sendJson(res, 201, {
    kind: 'SelfSubjectRulesReview',
    apiVersion,
    ...head,
    spec: {},
    status: {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    },
  });
  return true;
}
