CREATE TABLE "exchange_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"exchange_name" text NOT NULL,
	"environment" text NOT NULL,
	"key_hint" text NOT NULL,
	"api_key_sealed" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"master_key_id" text NOT NULL,
	"status" text NOT NULL,
	"permissions" jsonb NOT NULL,
	"warnings" jsonb NOT NULL,
	"checked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "exchange_keys" ADD CONSTRAINT "exchange_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "exchange_keys_user_idx" ON "exchange_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "exchange_keys_master_idx" ON "exchange_keys" USING btree ("master_key_id");