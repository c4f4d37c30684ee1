/**
 * A self-signed serving certificate for `kubesim serve --tls`, made at start-up as kube-apiserver
 * makes one when it is given none (upstream: staging/src/k8s.io/client-go/util/cert/cert.go
 * GenerateSelfSignedCertKeyWithFixtures). Simplified: upstream signs the serving certificate with a
 * throw-away CA and serves both; here one certificate is its own issuer (basicConstraints CA, so
 * clients can trust it as the kubeconfig's `certificate-authority-data`), valid for 127.0.0.1 and
 * localhost, which is all a loopback server is reached by.
 *
 * Node 20 cannot build an X.509 certificate, so node-forge (loaded only when --tls is asked for)
 * writes it; the RSA key comes from node's crypto, which is fast where forge's pure-JS keygen is not.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';

export interface ServingCert {
  /** PEM private key */
  key: string;
  /** PEM certificate (also the CA bundle clients trust) */
  cert: string;
}

/** One year, as upstream's self-signed serving certificate. */
const VALID_MS = 365 * 24 * 3600 * 1000;

export async function selfSignedCert(host: string, now = new Date()): Promise<ServingCert> {
  const { default: forge } = await import('node-forge');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const pubPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pubPem);
  // a positive serial: RFC 5280 asks for at most 20 octets, positive
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  cert.serialNumber = serial.toString('hex');
  // backdated an hour against clock skew, as upstream does
  cert.validity.notBefore = new Date(now.getTime() - 3600 * 1000);
  cert.validity.notAfter = new Date(now.getTime() + VALID_MS);
  const name = [{ name: 'commonName', value: `kubesim-${Math.floor(now.getTime() / 1000)}` }];
  cert.setSubject(name);
  cert.setIssuer(name);
  const isIp = /^[\d.]+$|:/.test(host);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        isIp ? { type: 7, ip: host } : { type: 2, value: host },
        ...(host === '127.0.0.1' ? [] : [{ type: 7, ip: '127.0.0.1' }]),
        ...(host === 'localhost' ? [] : [{ type: 2, value: 'localhost' }]),
      ],
    },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return { key: keyPem, cert: forge.pki.certificateToPem(cert) };
}
