import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { bitString, boolean, explicit, implicit, integer, objectIdentifier as oid, octetString, sequence, set, utcTime, utf8String as utf8, type Der } from "./der-writer.js";

/** A certificate and its private key, as TLS wants them, and the certificate's DER. */
export interface SelfSignedCertificate {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  readonly der: Buffer;
}

/** What the certificate names and when it starts. */
export interface CertificateOptions {
  /** The subject's and issuer's organisation (O=). @default "terraform-provider" */
  readonly organization?: string | undefined;
  /** Valid from 30 seconds before this. @default now */
  readonly now?: Date;
}

const OID = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extendedKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

/**
 * A fresh ECDSA P-256 certificate for `localhost` and 127.0.0.1, its own issuer, valid from 30
 * seconds ago for a year, usable by a TLS server and client: what go-plugin's automatic mutual TLS
 * expects of a plugin (its client trusts exactly this certificate, as a CA, for the name localhost).
 */
export function selfSignedCertificate(options: CertificateOptions = {}): SelfSignedCertificate {
  const now = options.now ?? new Date();
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const name = sequence(set(sequence(oid(OID.commonName), utf8("localhost"))), set(sequence(oid(OID.organization), utf8(options.organization ?? "terraform-provider"))));
  const signatureAlgorithm = sequence(oid(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x3f) | 0x40; // positive and minimally encoded
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    signatureAlgorithm,
    name,
    sequence(utcTime(new Date(now.getTime() - 30_000)), utcTime(new Date(now.getTime() + 365 * 24 * 3600_000))),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    explicit(
      3,
      sequence(
        extension(OID.basicConstraints, true, sequence(boolean(true))),
        extension(OID.keyUsage, true, bitString(Buffer.from([0x84]), 2)), // digitalSignature, keyCertSign
        extension(OID.extendedKeyUsage, false, sequence(oid(OID.serverAuth), oid(OID.clientAuth))),
        extension(OID.subjectAltName, false, sequence(implicit(2, Buffer.from("localhost", "ascii")), implicit(7, Buffer.from([127, 0, 0, 1])))),
      ),
    ),
  );
  const signature = sign("sha256", tbs, privateKey);
  const certificate = sequence(tbs, signatureAlgorithm, bitString(signature, 0));
  return {
    der: certificate,
    certificatePem: `-----BEGIN CERTIFICATE-----\n${certificate.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n?$/, "\n")}-----END CERTIFICATE-----\n`,
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

const extension = (id: string, critical: boolean, value: Der) => sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
