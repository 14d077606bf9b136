-- Only a private chat may be linked: group and channel chats (negative ids) are unlinked, and a private chat's id is the id of the Telegram user it is with, the one sender the bot now takes commands from.
DELETE FROM telegram_links WHERE chat_id < 0;--> statement-breakpoint
UPDATE telegram_links SET telegram_user_id = chat_id WHERE telegram_user_id IS NULL;
