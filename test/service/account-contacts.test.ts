import { describe, expect, it } from "vitest";
import { contactBody, expectAccountError, expectEmptySuccess, expectValidation } from "../support/account-expect.js";
import { accountCall, call } from "../support/http.js";
import { useWorld } from "../support/world.js";

const { service } = useWorld();

const REQUIRED_FIELDS = ["AlternateContactType", "EmailAddress", "Name", "PhoneNumber", "Title"] as const;

/** An email address of exactly `length` characters. */
function emailOfLength(length: number): string {
  const domain = "@example.com";
  return "a".repeat(length - domain.length) + domain;
}

async function getContact(type: string, token = "admin-token", accountId?: string) {
  return accountCall(service, "GetAlternateContact", { AlternateContactType: type, ...(accountId ? { AccountId: accountId } : {}) }, token);
}

/** Removes a contact if it exists, so that a test starts from a known state. */
async function clearContact(type: string, token: string): Promise<void> {
  const result = await accountCall(service, "DeleteAlternateContact", { AlternateContactType: type }, token);
  expect([200, 404]).toContain(result.status);
}

describe("PutAlternateContact field constraints", () => {
  it.each<[string, string, unknown]>([
    ["EmailAddress of 254 characters (the maximum)", "EmailAddress", emailOfLength(254)],
    ["EmailAddress of the shortest form the pattern allows", "EmailAddress", "a@b.c"],
    ["EmailAddress with every special character the pattern allows", "EmailAddress", "a+b=c.d#e|f!g&h-i_j@ex-am_ple.co.uk"],
    ["EmailAddress with surrounding spaces", "EmailAddress", "  security@example.com  "],
    ["EmailAddress with surrounding tabs and newlines", "EmailAddress", "\t\nsecurity@example.com\n\t"],
    ["Name of 1 character", "Name", "A"],
    ["Name of 64 characters", "Name", "n".repeat(64)],
    ["Name of 64 emoji (64 code points, 128 UTF-16 units)", "Name", "😀".repeat(64)],
    ["Name of 64 CJK characters", "Name", "安".repeat(64)],
    ["PhoneNumber of 1 character", "PhoneNumber", "1"],
    ["PhoneNumber of 25 characters", "PhoneNumber", "1".repeat(25)],
    ["PhoneNumber with every character the pattern allows", "PhoneNumber", "+1 (555) 010-0100"],
    ["PhoneNumber of 25 characters with spaces and symbols", "PhoneNumber", "+44 (20) 7946-0958 12 345"],
    ["Title of 1 character", "Title", "T"],
    ["Title of 50 characters", "Title", "t".repeat(50)],
    ["Title of 50 emoji", "Title", "🚀".repeat(50)],
  ])("accepts %s and stores it unchanged", async (_label, field, value) => {
    const body = contactBody({ AlternateContactType: "BILLING", [field]: value });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body));
    const read = await getContact("BILLING");
    expect(read.status).toBe(200);
    expect(read.json.AlternateContact[field]).toBe(value);
  });

  it.each(["BILLING", "OPERATIONS", "SECURITY"])("accepts AlternateContactType %s", async (type) => {
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", contactBody({ AlternateContactType: type, Name: `${type} team` }), "delegated-token"));
    const read = await getContact(type, "delegated-token");
    expect(read.status).toBe(200);
    expect(read.json.AlternateContact).toMatchObject({ AlternateContactType: type, Name: `${type} team` });
  });

  it("accepts an AccountId of exactly 12 digits", async () => {
    const body = contactBody({ AccountId: "222222222222", AlternateContactType: "OPERATIONS", Name: "Member ops" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body));
    const read = await getContact("OPERATIONS", "admin-token", "222222222222");
    expect(read.json.AlternateContact.Name).toBe("Member ops");
  });

  it.each<[string, string, unknown]>([
    ["an empty EmailAddress", "EmailAddress", ""],
    ["an EmailAddress of 255 characters", "EmailAddress", emailOfLength(255)],
    ["an EmailAddress without @", "EmailAddress", "plainaddress"],
    ["an EmailAddress without a dot in the domain", "EmailAddress", "user@localhost"],
    ["an EmailAddress ending in a dot", "EmailAddress", "user@example."],
    ["an EmailAddress without a local part", "EmailAddress", "@example.com"],
    ["an EmailAddress with a space inside", "EmailAddress", "first last@example.com"],
    ["an EmailAddress with two @", "EmailAddress", "a@@example.com"],
    ["an EmailAddress with a non-ASCII letter", "EmailAddress", "jürgen@example.com"],
    ["an EmailAddress with a trailing semicolon", "EmailAddress", "user@example.com;"],
    ["an EmailAddress with two addresses", "EmailAddress", "a@example.com,b@example.com"],
    ["an EmailAddress that is a number", "EmailAddress", 42],
    ["an empty Name", "Name", ""],
    ["a Name of 65 characters", "Name", "n".repeat(65)],
    ["a Name of 65 emoji", "Name", "😀".repeat(65)],
    ["a Name that is null", "Name", null],
    ["an empty PhoneNumber", "PhoneNumber", ""],
    ["a PhoneNumber of 26 characters", "PhoneNumber", "1".repeat(26)],
    ["a PhoneNumber with letters", "PhoneNumber", "555-CALL-NOW"],
    ["a PhoneNumber with dots", "PhoneNumber", "1.555.010.0100"],
    ["a PhoneNumber with an extension", "PhoneNumber", "+1 555 0100 ext 2"],
    ["a PhoneNumber that is a number", "PhoneNumber", 15550100],
    ["an empty Title", "Title", ""],
    ["a Title of 51 characters", "Title", "t".repeat(51)],
    ["a Title of 51 emoji", "Title", "🚀".repeat(51)],
    ["an AccountId of 11 digits", "AccountId", "22222222222"],
    ["an AccountId of 13 digits", "AccountId", "2222222222222"],
    ["an AccountId with a letter", "AccountId", "22222222222a"],
    ["an AccountId of letters", "AccountId", "abcdefghijkl"],
    ["an AccountId with surrounding spaces", "AccountId", " 222222222222 "],
    ["an empty AccountId", "AccountId", ""],
    ["an AccountId that is a number", "AccountId", 222222222222],
    ["AlternateContactType in mixed case (Security)", "AlternateContactType", "Security"],
    ["AlternateContactType in lower case (billing)", "AlternateContactType", "billing"],
    ["AlternateContactType with a trailing space", "AlternateContactType", "SECURITY "],
    ["an unknown AlternateContactType", "AlternateContactType", "LEGAL"],
    ["an empty AlternateContactType", "AlternateContactType", ""],
  ])("rejects %s with a ValidationException naming that field and changes nothing", async (_label, field, value) => {
    const baseline = contactBody({ AlternateContactType: "SECURITY", Name: "Baseline" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", baseline, "member-token"));
    const result = await accountCall(service, "PutAlternateContact", contactBody({ Name: "Changed", [field]: value }), "member-token");
    expectValidation(result, [field]);
    const read = await getContact("SECURITY", "member-token");
    expect(read.json.AlternateContact).toEqual(baseline);
  });

  it.each(REQUIRED_FIELDS)("rejects a PutAlternateContact without %s", async (field) => {
    const result = await accountCall(service, "PutAlternateContact", contactBody({ [field]: undefined }));
    expectValidation(result, [field]);
    expect(result.json.fieldList[0].message).toContain(field);
  });

  it("rejects an empty object naming every required field", async () => {
    expectValidation(await accountCall(service, "PutAlternateContact", {}), [...REQUIRED_FIELDS]);
  });

  it("rejects an empty body naming every required field", async () => {
    expectValidation(await call(service, "/putAlternateContact", {}), [...REQUIRED_FIELDS]);
  });

  it("rejects several invalid fields with one ValidationException naming every one of them", async () => {
    const result = await accountCall(service, "PutAlternateContact", {
      AccountId: "1234",
      AlternateContactType: "Security",
      EmailAddress: "not-an-email",
      Name: "😀".repeat(65),
      PhoneNumber: "call me",
      Title: "",
    });
    const fields = ["AccountId", "AlternateContactType", "EmailAddress", "Name", "PhoneNumber", "Title"];
    expectValidation(result, fields);
    for (const field of fields) expect(result.json.message).toContain(field);
  });

  it("rejects missing and invalid fields together in one ValidationException", async () => {
    const result = await accountCall(service, "PutAlternateContact", { EmailAddress: "x@y", Name: "n".repeat(65) });
    expectValidation(result, ["AlternateContactType", "EmailAddress", "Name", "PhoneNumber", "Title"]);
  });

  it("ignores fields the spec does not define", async () => {
    const body = contactBody({ AlternateContactType: "OPERATIONS", Extra: "ignored" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body, "standalone-token"));
    const read = await getContact("OPERATIONS", "standalone-token");
    expect(read.json.AlternateContact).toEqual(contactBody({ AlternateContactType: "OPERATIONS" }));
  });
});

describe("GetAlternateContact and DeleteAlternateContact validation", () => {
  it.each<[string, string, Record<string, unknown>, string[]]>([
    ["GetAlternateContact", "a mixed-case type", { AlternateContactType: "Billing" }, ["AlternateContactType"]],
    ["GetAlternateContact", "a missing type", {}, ["AlternateContactType"]],
    ["GetAlternateContact", "an AccountId of 13 digits", { AccountId: "2222222222222", AlternateContactType: "BILLING" }, ["AccountId"]],
    ["DeleteAlternateContact", "a lower-case type", { AlternateContactType: "security" }, ["AlternateContactType"]],
    ["DeleteAlternateContact", "a missing type", {}, ["AlternateContactType"]],
    ["DeleteAlternateContact", "an AccountId of 11 digits and an unknown type", { AccountId: "22222222222", AlternateContactType: "X" }, ["AccountId", "AlternateContactType"]],
  ])("rejects %s with %s", async (operation, _label, body, fields) => {
    expectValidation(await accountCall(service, operation, body), fields);
  });
});

describe("alternate contact lifecycle", () => {
  it("reads back exactly the contact that was put", async () => {
    const body = contactBody({ AlternateContactType: "OPERATIONS", Name: "Ops", Title: "On call", EmailAddress: "ops@example.com", PhoneNumber: "(555) 010-0199" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body));
    const read = await getContact("OPERATIONS");
    expect(read.status).toBe(200);
    expect(read.headers["content-type"]).toBe("application/json");
    expect(read.json).toEqual({ AlternateContact: body });
  });

  it("overwrites an existing contact of the same type and leaves other types alone (rule 1)", async () => {
    const first = contactBody({ AlternateContactType: "BILLING", Name: "First", EmailAddress: "first@example.com" });
    const second = contactBody({ AlternateContactType: "BILLING", Name: "Second", EmailAddress: "second@example.com", PhoneNumber: "999", Title: "CFO" });
    const security = contactBody({ AlternateContactType: "SECURITY", Name: "Untouched" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", security));
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", first));
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", second));
    expect((await getContact("BILLING")).json).toEqual({ AlternateContact: second });
    expect((await getContact("SECURITY")).json).toEqual({ AlternateContact: security });
  });

  it("deletes a contact, after which reading or deleting it is a ResourceNotFoundException", async () => {
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", contactBody({ AlternateContactType: "BILLING" }), "delegated-token"));
    expectEmptySuccess(await accountCall(service, "DeleteAlternateContact", { AlternateContactType: "BILLING" }, "delegated-token"));
    expectAccountError(await getContact("BILLING", "delegated-token"), 404, "ResourceNotFoundException");
    expectAccountError(await accountCall(service, "DeleteAlternateContact", { AlternateContactType: "BILLING" }, "delegated-token"), 404, "ResourceNotFoundException");
  });

  it("refuses to read a contact that was never put with ResourceNotFoundException", async () => {
    expectAccountError(await getContact("BILLING", "standalone-token"), 404, "ResourceNotFoundException");
  });

  it("keeps contacts of one account invisible on another", async () => {
    await clearContact("SECURITY", "admin-token");
    await clearContact("SECURITY", "delegated-token");
    const body = contactBody({ AlternateContactType: "SECURITY", Name: "Standalone security" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body, "standalone-token"));
    expect((await getContact("SECURITY", "standalone-token")).json).toEqual({ AlternateContact: body });
    expectAccountError(await getContact("SECURITY", "admin-token"), 404, "ResourceNotFoundException");
    expectAccountError(await getContact("SECURITY", "delegated-token"), 404, "ResourceNotFoundException");
  });

  it("keeps a contact put on a member account by the management account on that member only", async () => {
    await clearContact("OPERATIONS", "admin-token");
    await clearContact("OPERATIONS", "member-token");
    const body = contactBody({ AccountId: "333333333333", AlternateContactType: "OPERATIONS", Name: "Written by management" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body));
    const { AccountId: _target, ...stored } = body;
    expect((await getContact("OPERATIONS", "delegated-token")).json).toEqual({ AlternateContact: stored });
    expect((await getContact("OPERATIONS", "admin-token", "333333333333")).json).toEqual({ AlternateContact: stored });
    expectAccountError(await getContact("OPERATIONS", "admin-token"), 404, "ResourceNotFoundException");
    expectAccountError(await getContact("OPERATIONS", "member-token"), 404, "ResourceNotFoundException");
  });
});
