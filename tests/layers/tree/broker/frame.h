/* beside broker/fine.c */
