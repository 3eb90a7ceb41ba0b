import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { objectIdentifier, tagged } from "../../../src/provider/runtime/der-writer.js";
import { selfSignedCertificate } from "../../../src/provider/runtime/self-signed-certificate.js";

describe("selfSignedCertificate", () => {
  it("is a CA certificate for localhost and 127.0.0.1 that verifies itself, naming the organisation given", () => {
    const now = new Date("2026-11-25T12:00:00Z");
    const certificate = selfSignedCertificate({ organization: "example", now });
    const parsed = new X509Certificate(certificate.certificatePem);
    expect(parsed.raw.equals(certificate.der)).toBe(true);
    expect(parsed.subject.split("\n").sort()).toEqual(["CN=localhost", "O=example"]);
    expect(parsed.issuer).toBe(parsed.subject);
    expect(parsed.ca).toBe(true);
    expect(parsed.checkHost("localhost")).toBe("localhost");
    expect(parsed.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(parsed.verify(parsed.publicKey)).toBe(true);
    expect(new Date(parsed.validFrom).toISOString()).toBe("2026-11-25T11:59:30.000Z");
    expect(new Date(parsed.validTo).toISOString()).toBe("2027-11-25T12:00:00.000Z");
  });

  it("names a neutral organisation by default", () => {
    expect(new X509Certificate(selfSignedCertificate().certificatePem).subject).toContain("O=terraform-provider");
  });
});

describe("DER", () => {
  it("writes lengths of 128 bytes and more in the long form", () => {
    expect(tagged(0x04, Buffer.alloc(3)).subarray(0, 2)).toEqual(Buffer.from([0x04, 3]));
    expect(tagged(0x04, Buffer.alloc(200)).subarray(0, 3)).toEqual(Buffer.from([0x04, 0x81, 200]));
    expect(tagged(0x04, Buffer.alloc(300)).subarray(0, 4)).toEqual(Buffer.from([0x04, 0x82, 0x01, 0x2c]));
  });

  it("writes object identifiers with arcs of several base-128 digits, and refuses a malformed one", () => {
    // 1.2.840.10045.4.3.2 (ecdsa-with-SHA256), as every certificate writes it
    expect(objectIdentifier("1.2.840.10045.4.3.2")).toEqual(Buffer.from("06082a8648ce3d040302", "hex"));
    expect(() => objectIdentifier("1.x")).toThrow('received the object identifier "1.x": expected two or more dot-separated non-negative integers');
  });
});
