import { accountOf } from "../../desired/kinds/account-common.js";
import { ALTERNATE_CONTACT_SERVICE_NAMES, alternateContactModel } from "../../desired/kinds/alternate-contact.js";
import { SELF, type AccountKey } from "../../desired/read-key.js";
import { AlternateContactSpec, type AlternateContactDocument } from "../../desired/schema.js";
import { accountOfResource } from "../export-fields.js";
import { ALTERNATE_CONTACT_TYPES, type AlternateContact } from "../../contract/account.js";
import { diffFields } from "../diff.js";
import { PHASE } from "../model.js";
import type { LiveNeed } from "../model.js";
import { accountIdField, describeAccount } from "./account-common.js";
import { decide, type KindEngine, type ReadKeySource, type ExportedDocument } from "./kind-engine.js";
import { liveKeyOf } from "../live-keys.js";

const trim = (value: unknown) => (typeof value === "string" ? value.trim() : value);

/** The requests of the AlternateContact engine. */
export type AlternateContactRequest =
  | { readonly op: "putContact"; readonly account: AccountKey; readonly contact: AlternateContact }
  | { readonly op: "deleteContact"; readonly account: AccountKey; readonly contactType: AlternateContact["AlternateContactType"] };

/** AlternateContact: one GetAlternateContact per document; PutAlternateContact creates and updates. */
export const alternateContactEngine = {
  model: alternateContactModel,
  planOrder: 2,
  ops: ["putContact", "deleteContact"],

  plan(loaded, context) {
    const document = loaded.document;
    const account = accountOf(document);
    const key = `${account}/${document.spec.type}`;
    const live = context.live.contacts[key];
    if (live === undefined) {
      return { actions: [], problems: [{ ...loaded.source, path: "", message: `the live contact ${key} was not read` }] };
    }
    if (live !== null) context.declare(liveKeyOf("contacts", account, document.spec.type));
    const spec = document.spec as { type: AlternateContact["AlternateContactType"]; name: string; title: string; emailAddress: string; phoneNumber: string };
    const put = (): AlternateContactRequest => ({
      op: "putContact",
      account,
      contact: { AlternateContactType: spec.type, EmailAddress: spec.emailAddress, Name: spec.name, PhoneNumber: spec.phoneNumber, Title: spec.title },
    });
    return decide<AlternateContact>({
      base: { kind: "AlternateContact", address: `AlternateContact/${key}`, name: key, identity: key, source: loaded.source, phase: PHASE.independent },
      ensure: document.ensure,
      live: live ?? undefined,
      phases: { present: PHASE.independent, delete: PHASE.independent },
      delete: () => ({ op: "deleteContact", account, contactType: document.spec.type }),
      create: () => ({
        changes: Object.entries(spec).filter(([field]) => field !== "type").map(([path, after]) => ({ path, before: null, after })),
        request: put(),
      }),
      compare(contact) {
        const liveSpec = { name: contact.Name, title: contact.Title, emailAddress: contact.EmailAddress, phoneNumber: contact.PhoneNumber };
        const wanted = { name: spec.name, title: spec.title, emailAddress: spec.emailAddress, phoneNumber: spec.phoneNumber };
        return { changes: diffFields(wanted, liveSpec, { normalize: { emailAddress: trim } }), request: put() };
      },
    });
  },

  liveResources: (live) => Object.entries(live.contacts).flatMap(([key, contact]) => {
    if (contact === null) return [];
    const [account = "", type = contact.AlternateContactType] = key.split("/");
    return [{ key: liveKeyOf("contacts", account, type), address: `AlternateContact/${key}`, identity: key, serviceManaged: false }];
  }),

  async execute(request, context) {
    if (request.op === "putContact") {
      await context.clients.account.putAlternateContact({ ...accountIdField(request.account), ...request.contact }, { signal: context.signal });
    } else {
      await context.clients.account.deleteAlternateContact(
        { ...accountIdField(request.account), AlternateContactType: request.contactType },
        { signal: context.signal },
      );
    }
  },

  deleted: (request) => (request.op === "deleteContact" ? { description: `contact ${request.contactType} of ${request.account}` } : undefined),

  /** `converge_alternate_contact` (src/provider/resources/alternate-contact.ts), imported by `ACCOUNT_ID/TYPE` (`TYPE` for the caller's own). */
  terraformExport: {
    fields: AlternateContactSpec.shape,
    serviceNames: ALTERNATE_CONTACT_SERVICE_NAMES,
    label: (document) => `${String((document as ContactInput).spec.type).toLowerCase()}${accountOfResource(document as ContactInput).labelSuffix}`,
    importId: (document) => `${accountOfResource(document as ContactInput).importPrefix}${String((document as ContactInput).spec.type)}`,
  },
  exportOrder: 0,
  exportNeeds: (account) => ALTERNATE_CONTACT_TYPES.map((contactType) => ({ type: "contact", account, contactType })),
  exportAccount(account, live) {
    const missing = ALTERNATE_CONTACT_TYPES.filter((type) => !live.contacts[`${account}/${type}`]);
    const documents = ALTERNATE_CONTACT_TYPES.flatMap((type): ExportedDocument[] => {
      const contact = live.contacts[`${account}/${type}`];
      if (!contact) return [];
      return [{
        kind: "AlternateContact",
        ...(account === SELF ? {} : { account }),
        spec: { type, name: contact.Name, title: contact.Title, emailAddress: contact.EmailAddress, phoneNumber: contact.PhoneNumber },
      }];
    });
    return {
      documents,
      header: missing.length > 0 ? [`No ${missing.join(", ")} contact is set (omitted: declare one, or ensure: absent to keep it so).`] : [],
    };
  },
} satisfies KindEngine<AlternateContactDocument, AlternateContactRequest>;

type ContactInput = { readonly account?: string | undefined; readonly spec: { readonly type?: unknown } };

/** The `contact` read key: one GetAlternateContact (null when the account has none of that type). */
export const contactSource: ReadKeySource<Extract<LiveNeed, { type: "contact" }>> = {
  count: () => 1,
  describe: (need) => `the ${need.contactType} contact of ${describeAccount(need.account)}`,
  async read(need, { clients, signal }) {
    const contact = await clients.account.getAlternateContact({ ...accountIdField(need.account), AlternateContactType: need.contactType }, { signal });
    return { contacts: { [`${need.account}/${need.contactType}`]: contact ?? null } };
  },
  /** A put of the contact is what it put; a delete leaves none; a write naming the account another way is read again. */
  afterWrite(need, _read, write) {
    const body = write.body as { readonly AccountId?: string; readonly AlternateContactType?: string } & Partial<AlternateContact>;
    if (write.service !== "account" || body.AlternateContactType !== need.contactType) return undefined;
    const account = body.AccountId ?? SELF;
    if (account !== need.account) return account === SELF || need.account === SELF ? "reread" : undefined;
    const key = `${need.account}/${need.contactType}`;
    if (body.EmailAddress === undefined) return { contacts: { [key]: null } };
    const { AccountId: _account, ...contact } = body;
    return { contacts: { [key]: contact as AlternateContact } };
  },
};
