"""application tables

Revision ID: 0001
Revises: (none)
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# The catalogue as it stood at this revision (houndgraph/auth/permissions.py names the same pairs);
# later changes belong in later migrations.
PERMISSIONS = [
    ("app", "ReadAppConfig"), ("app", "WriteAppConfig"), ("risks", "GenerateReport"), ("risks", "ManageRisks"),
    ("auth", "AcceptEULA"), ("auth", "CreateToken"), ("auth", "ManageAppConfig"), ("auth", "ManageProviders"),
    ("auth", "ManageSelf"), ("auth", "ManageUsers"), ("auth", "ReadUsers"), ("clients", "Manage"),
    ("clients", "Read"), ("clients", "Tasking"), ("collection", "ManageJobs"), ("graphdb", "Read"),
    ("graphdb", "Write"), ("graphdb", "Ingest"), ("graphdb", "Mutate"), ("saved_queries", "Read"),
    ("saved_queries", "Write"),
]
_READ_ONLY = [("app", "ReadAppConfig"), ("risks", "GenerateReport"), ("auth", "CreateToken"),
              ("auth", "ManageSelf"), ("auth", "ReadUsers"), ("graphdb", "Read"), ("saved_queries", "Read")]
_USER = _READ_ONLY + [("clients", "Read"), ("saved_queries", "Write")]
_POWER_USER = _USER + [("app", "WriteAppConfig"), ("risks", "ManageRisks"), ("clients", "Manage"),
                       ("clients", "Tasking"), ("collection", "ManageJobs"), ("graphdb", "Write"),
                       ("graphdb", "Ingest"), ("graphdb", "Mutate")]
ROLES = [
    ("Administrator", "Can manage users, clients, and application configuration", PERMISSIONS),
    ("Power User", "Can upload data, manage clients, and perform any action a User can", _POWER_USER),
    ("User", "Can read data, modify asset group memberships", _USER),
    ("Read-Only", "Used for integrations", _READ_ONLY),
    ("Upload-Only", "Used for data collection clients, can post data but cannot read data",
     [("clients", "Tasking"), ("graphdb", "Ingest")]),
]

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('datapipe_status',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_complete_analysis_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_analysis_run_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('analysis_requested', sa.Boolean(), nullable=False),
    sa.CheckConstraint('id = 1', name=op.f('ck_datapipe_status_single_row')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_datapipe_status'))
    )
    op.create_table('feature_flags',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=128), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('description', sa.String(), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('user_updatable', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_feature_flags')),
    sa.UniqueConstraint('key', name=op.f('uq_feature_flags_key'))
    )
    op.create_table('login_failures',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('username', sa.String(length=255), nullable=False),
    sa.Column('failed_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_login_failures'))
    )
    op.create_index(op.f('ix_login_failures_username'), 'login_failures', ['username'], unique=False)
    op.create_table('parameters',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=128), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('description', sa.String(), nullable=False),
    sa.Column('value', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_parameters')),
    sa.UniqueConstraint('key', name=op.f('uq_parameters_key'))
    )
    op.create_table('permissions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('authority', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permissions')),
    sa.UniqueConstraint('authority', 'name', name=op.f('uq_permissions_authority'))
    )
    op.create_table('roles',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('description', sa.String(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_roles')),
    sa.UniqueConstraint('name', name=op.f('uq_roles_name'))
    )
    op.create_table('users',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('principal_name', sa.String(length=255), nullable=False),
    sa.Column('email_address', sa.String(length=255), nullable=True),
    sa.Column('first_name', sa.String(length=255), nullable=True),
    sa.Column('last_name', sa.String(length=255), nullable=True),
    sa.Column('is_disabled', sa.Boolean(), nullable=False),
    sa.Column('eula_accepted', sa.Boolean(), nullable=False),
    sa.Column('last_login', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('email_address', name=op.f('uq_users_email_address')),
    sa.UniqueConstraint('principal_name', name=op.f('uq_users_principal_name'))
    )
    op.create_table('auth_secrets',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('digest', sa.String(), nullable=False),
    sa.Column('digest_method', sa.String(length=32), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('must_change', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_auth_secrets_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_auth_secrets')),
    sa.UniqueConstraint('user_id', name=op.f('uq_auth_secrets_user_id'))
    )
    op.create_table('auth_tokens',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('key', sa.String(), nullable=False),
    sa.Column('hmac_method', sa.String(length=32), nullable=False),
    sa.Column('last_access', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_auth_tokens_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_auth_tokens'))
    )
    op.create_index(op.f('ix_auth_tokens_user_id'), 'auth_tokens', ['user_id'], unique=False)
    op.create_table('roles_permissions',
    sa.Column('role_id', sa.Integer(), nullable=False),
    sa.Column('permission_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['permission_id'], ['permissions.id'], name=op.f('fk_roles_permissions_permission_id_permissions'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['role_id'], ['roles.id'], name=op.f('fk_roles_permissions_role_id_roles'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('role_id', 'permission_id', name=op.f('pk_roles_permissions'))
    )
    op.create_table('user_sessions',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('auth_provider_type', sa.Integer(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_user_sessions_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_user_sessions'))
    )
    op.create_index(op.f('ix_user_sessions_user_id'), 'user_sessions', ['user_id'], unique=False)
    op.create_table('users_roles',
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('role_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['role_id'], ['roles.id'], name=op.f('fk_users_roles_role_id_roles'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_users_roles_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', 'role_id', name=op.f('pk_users_roles'))
    )

    seed_roles()
    op.execute("INSERT INTO datapipe_status (id, status, updated_at, analysis_requested) VALUES (1, 'idle', now(), false)")


def seed_roles() -> None:
    permissions = sa.table("permissions", sa.column("id"), sa.column("authority"), sa.column("name"))
    roles = sa.table("roles", sa.column("id"), sa.column("name"), sa.column("description"))
    links = sa.table("roles_permissions", sa.column("role_id"), sa.column("permission_id"))
    ids = {perm: index for index, perm in enumerate(PERMISSIONS, start=1)}
    op.bulk_insert(permissions, [{"id": i, "authority": a, "name": n} for (a, n), i in ids.items()])
    op.bulk_insert(roles, [{"id": i, "name": name, "description": description}
                           for i, (name, description, _) in enumerate(ROLES, start=1)])
    op.bulk_insert(links, [{"role_id": i, "permission_id": ids[p]}
                           for i, (_, _, granted) in enumerate(ROLES, start=1) for p in granted])
    op.execute("SELECT setval(pg_get_serial_sequence('permissions', 'id'), (SELECT max(id) FROM permissions))")
    op.execute("SELECT setval(pg_get_serial_sequence('roles', 'id'), (SELECT max(id) FROM roles))")


def downgrade() -> None:
    op.drop_table('users_roles')
    op.drop_index(op.f('ix_user_sessions_user_id'), table_name='user_sessions')
    op.drop_table('user_sessions')
    op.drop_table('roles_permissions')
    op.drop_index(op.f('ix_auth_tokens_user_id'), table_name='auth_tokens')
    op.drop_table('auth_tokens')
    op.drop_table('auth_secrets')
    op.drop_table('users')
    op.drop_table('roles')
    op.drop_table('permissions')
    op.drop_table('parameters')
    op.drop_index(op.f('ix_login_failures_username'), table_name='login_failures')
    op.drop_table('login_failures')
    op.drop_table('feature_flags')
    op.drop_table('datapipe_status')
