import { accountOf, alternateContactModel } from "../../desired/kinds/alternate-contact.js";
import { SELF } from "../../desired/read-key.js";
import type { AlternateContactDocument } from "../../desired/schema.js";
import type { AlternateContact } from "../../spec/account.js";
import { diffFields } from "../diff.js";
import { PHASE, type PlannedAction } from "../model.js";
import type { KindEngine } from "./kind-engine.js";

const trim = (value: unknown) => (typeof value === "string" ? value.trim() : value);

/** `{}` for the caller's own account (the management account may not name itself). */
export function accountIdField(account: string): { AccountId?: string } {
  return account === SELF ? {} : { AccountId: account };
}

/** AlternateContact: one GetAlternateContact per document; PutAlternateContact creates and updates. */
export const alternateContactEngine: KindEngine<AlternateContactDocument> = {
  model: alternateContactModel,
  planOrder: 2,
  ops: ["putContact", "deleteContact"],

  plan(loaded, context) {
    const document = loaded.document;
    const account = accountOf(document);
    const key = `${account}/${document.spec.type}`;
    const live = context.live.contacts[key];
    const base = { kind: "AlternateContact" as const, address: `AlternateContact/${key}`, name: key, identity: key, source: loaded.source, phase: PHASE.independent };
    const action = (fields: Omit<PlannedAction, keyof typeof base>): PlannedAction => ({ ...base, ...fields });
    if (live === undefined) {
      return { actions: [], problems: [{ ...loaded.source, path: "", message: `the live contact ${key} was not read` }] };
    }
    if (document.ensure === "absent") {
      if (live === null) return { problems: [], actions: [action({ type: "no-op", changes: [] })] };
      return {
        problems: [],
        actions: [action({ type: "delete", changes: [], reason: "ensure: absent", request: { op: "deleteContact", account, contactType: document.spec.type } })],
      };
    }
    const spec = document.spec as { type: AlternateContact["AlternateContactType"]; name: string; title: string; emailAddress: string; phoneNumber: string };
    const contact: AlternateContact = {
      AlternateContactType: spec.type,
      EmailAddress: spec.emailAddress,
      Name: spec.name,
      PhoneNumber: spec.phoneNumber,
      Title: spec.title,
    };
    const request = { op: "putContact" as const, account, contact };
    if (live === null) {
      const changes = Object.entries(spec).filter(([field]) => field !== "type").map(([path, after]) => ({ path, before: null, after }));
      return { problems: [], actions: [action({ type: "create", changes, request })] };
    }
    const liveSpec = { name: live.Name, title: live.Title, emailAddress: live.EmailAddress, phoneNumber: live.PhoneNumber };
    const changes = diffFields({ name: spec.name, title: spec.title, emailAddress: spec.emailAddress, phoneNumber: spec.phoneNumber }, liveSpec, { normalize: { emailAddress: trim } });
    return { problems: [], actions: [action(changes.length === 0 ? { type: "no-op", changes } : { type: "update", changes, request })] };
  },

  async execute(request, context) {
    if (request.op === "putContact") {
      await context.clients.account.putAlternateContact({ ...accountIdField(request.account), ...request.contact }, { signal: context.signal });
    } else if (request.op === "deleteContact") {
      await context.clients.account.deleteAlternateContact({ ...accountIdField(request.account), AlternateContactType: request.contactType }, { signal: context.signal });
    }
  },
};
