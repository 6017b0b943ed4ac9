import { assignCatalogToEmployee, AssignCatalogToEmployeeOutput } from '../../../domain/catalog/assign-catalog-to-employee.js';
import type { ToolDefinition } from './tool.js';

export const assignCatalogToEmployeeTool: ToolDefinition = {
  name: 'assign_catalog_to_employee',
  title: 'Assign catalog item to employee (admin)',
  description:
    'Grants an employee (email) a catalog row (catalog_slug or catalog_id, exactly one), bypassing apply and review: {approval_id, status, idempotent}. An existing pending, approved, in_execution or completed request is reused as it is (idempotent: true; a pending one stays pending). Structured errors. Admin users only.',
  operation: assignCatalogToEmployee,
  output: AssignCatalogToEmployeeOutput,
  errorForm: 'structured',
  readOnly: false,
};
