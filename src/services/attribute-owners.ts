import { type AttributeOwnerEntry, attributeOwners, type ResourceRecord } from '../model/index.js';

/**
 * Who owns each attribute of a resource already read (its read checked `resource:read`): the
 * recorded writer, the provider, or declared (src/model/attribute-owners.ts holds the rule). One
 * entry per current key, by key.
 */
export function resourceAttributeOwners(resource: ResourceRecord): AttributeOwnerEntry[] {
  return attributeOwners(resource);
}
