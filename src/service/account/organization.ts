import type { World } from "../world.js";
import { accountDialect } from "../service-error.js";
import type { Identity } from "../identity.js";

/**
 * Which account an operation acts on (docs/manual/reference.md). Without AccountId, the caller's own. With it, only
 * the management account or a delegated administrator may act, only on a member account of its
 * organization, and only with all features and trusted access enabled; the management account may
 * not name itself.
 */
export function resolveTargetAccount(world: World, identity: Identity, requested: string | undefined): string {
  if (requested === undefined) return identity.accountId;
  const caller = identity.accountId;
  const org = world.organization;
  const deny = (why: string) => accountDialect.accessDenied(`AccountId ${requested} cannot be used by account ${caller}: ${why}`);
  const inOrganization = org && (org.managementAccountId === caller || org.memberAccountIds.includes(caller));
  if (!org || !inOrganization) throw deny("the caller is a standalone account; omit AccountId to act on your own account");
  if (requested === org.managementAccountId && caller === org.managementAccountId) {
    throw deny("the management account cannot pass its own AccountId; omit AccountId to act on it");
  }
  const isManagement = caller === org.managementAccountId;
  const isDelegatedAdmin = org.delegatedAdminAccountIds.includes(caller);
  if (!isManagement && !isDelegatedAdmin) {
    throw deny("only the management account or a delegated administrator account may pass AccountId");
  }
  if (!org.memberAccountIds.includes(requested)) throw deny("the target is not a member account of the caller's organization");
  if (!org.allFeaturesEnabled) throw deny("the organization does not have all features enabled");
  if (!org.trustedAccess) throw deny("trusted access for the account management service is not enabled in the organization");
  return requested;
}
