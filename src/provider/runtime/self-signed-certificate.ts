import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { createRequire } from "node:module";
import type forge from "node-forge";

/**
 * node-forge's DER encoder alone: its X.509 builder signs only with RSA, whose key generation and
 * pure-JS signing take 300 ms and more here, while an ECDSA P-256 key and signature from
 * node:crypto take about 1 ms. The whole forge bundle costs about 30 ms to import, this module 5 ms.
 */
const asn1 = createRequire(import.meta.url)("node-forge/lib/asn1.js") as typeof forge.asn1;

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
    asn1.fromDer(binary(publicKey.export({ type: "spki", format: "der" }))),
    explicit(
      3,
      sequence(
        extension(OID.basicConstraints, true, sequence(boolean(true))),
        extension(OID.keyUsage, true, bitString(Buffer.from([0x84]), 2)), // digitalSignature, keyCertSign
        extension(OID.extendedKeyUsage, false, sequence(oid(OID.serverAuth), oid(OID.clientAuth))),
        extension(OID.subjectAltName, false, sequence(context(2, "localhost"), context(7, binary(Buffer.from([127, 0, 0, 1]))))),
      ),
    ),
  );
  const tbsDer = der(tbs);
  const signature = sign("sha256", tbsDer, privateKey);
  const certificate = der(sequence(asn1.fromDer(binary(tbsDer)), signatureAlgorithm, bitString(signature, 0)));
  return {
    der: certificate,
    certificatePem: `-----BEGIN CERTIFICATE-----\n${certificate.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n?$/, "\n")}-----END CERTIFICATE-----\n`,
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

type Node = forge.asn1.Asn1;
const { Class, Type } = asn1;

const binary = (bytes: Buffer) => bytes.toString("binary");
const der = (node: Node) => Buffer.from(asn1.toDer(node).getBytes(), "binary");
const sequence = (...nodes: Node[]) => asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, nodes);
const set = (...nodes: Node[]) => asn1.create(Class.UNIVERSAL, Type.SET, true, nodes);
const oid = (dotted: string) => asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(dotted).getBytes());
const utf8 = (text: string) => asn1.create(Class.UNIVERSAL, Type.UTF8, false, Buffer.from(text, "utf8").toString("binary"));
const integer = (bytes: Buffer) => asn1.create(Class.UNIVERSAL, Type.INTEGER, false, binary(bytes));
const boolean = (value: boolean) => asn1.create(Class.UNIVERSAL, Type.BOOLEAN, false, value ? "\xff" : "\x00");
const octets = (node: Node) => asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, asn1.toDer(node).getBytes());
const bitString = (bytes: Buffer, unusedBits: number) => asn1.create(Class.UNIVERSAL, Type.BITSTRING, false, String.fromCharCode(unusedBits) + binary(bytes));
const utcTime = (date: Date) => asn1.create(Class.UNIVERSAL, Type.UTCTIME, false, asn1.dateToUtcTime(date));
const explicit = (tag: number, node: Node) => asn1.create(Class.CONTEXT_SPECIFIC, tag, true, [node]);
const context = (tag: number, bytes: string) => asn1.create(Class.CONTEXT_SPECIFIC, tag, false, bytes);
const extension = (id: string, critical: boolean, value: Node) => sequence(oid(id), ...(critical ? [boolean(true)] : []), octets(value));
