import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aRole, peopleOfRole, roleNoun } from './role-text.ts';

describe('role names as people read them', () => {
  it('adds "reviewer" to a role that does not name a person', () => {
    assert.equal(aRole('finance'), 'a finance reviewer');
    assert.equal(aRole('legal'), 'a legal reviewer');
    assert.equal(aRole('logistics'), 'a logistics reviewer');
  });
  it('keeps a role that already names a person, with the right article', () => {
    assert.equal(aRole('supervisor'), 'a supervisor');
    assert.equal(aRole('retention_lead'), 'a retention lead');
    assert.equal(aRole('operator'), 'an operator');
    assert.equal(roleNoun('finance-approvers'), 'finance approvers');
  });
  it('counts people', () => {
    assert.equal(peopleOfRole('supervisor', 2), '2 supervisors');
    assert.equal(peopleOfRole('finance', 3), '3 finance reviewers');
    assert.equal(peopleOfRole('finance', 1), 'a finance reviewer');
  });
});
