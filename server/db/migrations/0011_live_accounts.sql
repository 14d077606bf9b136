CREATE TABLE "trading_accounts" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"key_id" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "order_requests" ADD COLUMN "account" text DEFAULT 'paper' NOT NULL;--> statement-breakpoint
ALTER TABLE "order_requests" ADD COLUMN "symbol" text;--> statement-breakpoint
ALTER TABLE "order_requests" ADD COLUMN "state" text DEFAULT 'claimed' NOT NULL;--> statement-breakpoint
ALTER TABLE "order_requests" ADD COLUMN "order_id" text;--> statement-breakpoint
ALTER TABLE "order_requests" ADD COLUMN "error" text;--> statement-breakpoint
ALTER TABLE "order_requests" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "trading_accounts" ADD CONSTRAINT "trading_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trading_accounts" ADD CONSTRAINT "trading_accounts_key_id_exchange_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "exchange_keys"("id") ON DELETE set null ON UPDATE no action;